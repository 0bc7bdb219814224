"""The GitHub tracker: the `Tracker` port over GitHub's REST API, through githubkit.

Lookups ask GitHub (the card and the final check see the issue as it is now). How each request is sent
(pacing, rate-limit retries, errors mapped, redirects refused, in-doubt writes) is tools/github/calls.py;
each write's response is applied to the synced folder at once, so search shows it without a re-sync.
Comments carry a hidden marker `<!-- atlas:KEY -->` with the request key, and `settle` answers whether an
in-doubt write already happened (the marker is on the issue, the issue is closed as asked, the labels are
there; for a new issue, the marker at the end of its body among the newest issues), so it is never written
twice. `close_issue(duplicate)` sends `duplicate_issue_id` = the original's internal `id`; a server that
rejects `duplicate` (422) gets a "Duplicate of #N" comment and `not_planned`, and the result says so.
A transferred issue (301), a deleted one (410) and a pull request are refused with "nothing was done"
(tools/github/refusals.py). The reads are tools/github/reads.py's, `settle` tools/github/settling.py's.
"""

from __future__ import annotations

from typing import Any

from tools.errors import TrackerError
from tools.github.calls import json_array, json_object
from tools.github.reads import put_issue
from tools.github.settling import Settling, marker
from tools.tracker import CloseReason, IssueRef, Tracker

DUPLICATE_FALLBACK = (
    'GitHub did not accept closing as a duplicate here, so Atlas commented "Duplicate of #{original}" '
    "and closed it as not planned."
)
__all__ = ["DUPLICATE_FALLBACK", "GitHubTracker", "marker"]


class GitHubTracker(Settling):
    """One repository's issues as the tracker (see module doc): reads (tools/github/reads.py), settling
    (tools/github/settling.py) and the writes here."""

    def for_repo(self, repo: str) -> Tracker | None:
        """Itself for its own repository; None for another (this tracker writes to one repository only)."""
        return self if repo.strip().lower() == self.gh.repo.lower() else None

    def add_labels(self, number: int, labels: list[str], *, key: str | None = None) -> IssueRef:
        self._require(number)
        unknown = sorted(set(labels) - set(self.known_labels()))
        if unknown:
            raise TrackerError(f"these labels do not exist in {self.gh.repo}: {', '.join(unknown)}")
        response = self._write(
            lambda: self.github.rest.issues.add_labels(self.gh.owner, self.gh.name, number, labels=labels),
            f"label issue #{number} in",
            number,
        )
        names = [str(label["name"]) for label in json_array(response)]
        self._apply(lambda store: store.set_issue_labels(number, names))
        return self._require(number)

    def post_comment(self, number: int, body: str, *, key: str | None = None) -> str:
        self._require(number)
        text = f"{body}\n\n{marker(key)}" if key else body
        response = self._write(
            lambda: self.github.rest.issues.create_comment(self.gh.owner, self.gh.name, number, body=text),
            f"comment on issue #{number} in",
            number,
        )
        comment = json_object(response)
        self._apply(lambda store: store.put_comment(comment, number))
        return str(comment.get("html_url") or self.url(number))

    def close_issue(
        self, number: int, reason: CloseReason, duplicate_of: int | None, *, key: str | None = None
    ) -> IssueRef:
        issue = self._require_raw(number)
        if issue.get("state") == "closed":
            raise TrackerError(f"issue #{number} is already closed")
        fields: dict[str, Any] = {"state": "closed", "state_reason": reason}
        if reason == "duplicate":
            original = self._raw_issue(duplicate_of) if duplicate_of and duplicate_of != number else None
            if original is None:
                raise TrackerError("a duplicate needs duplicate_of: another existing issue")
            fields["duplicate_issue_id"] = int(original["id"])
        try:
            response = self._write(
                lambda: self.github.rest.issues.update(self.gh.owner, self.gh.name, number, **fields),
                f"close issue #{number} in",
                number,
            )
        except TrackerError as exc:
            if reason != "duplicate" or getattr(exc, "status", None) != 422:
                raise
            return self._close_as_duplicate_by_comment(number, duplicate_of or 0, key)
        raw = json_object(response)
        self._apply(lambda store: put_issue(store, raw, number, duplicate_of))
        return self._ref(raw, duplicate_of if reason == "duplicate" else None)

    def reopen_issue(self, number: int, *, key: str | None = None) -> IssueRef:
        """`PATCH /repos/{owner}/{repo}/issues/{n}` with state open and state_reason reopened."""
        if self._require_raw(number).get("state") != "closed":
            raise TrackerError(f"issue #{number} is not closed")
        response = self._write(
            lambda: self.github.rest.issues.update(
                self.gh.owner, self.gh.name, number, state="open", state_reason="reopened"
            ),
            f"reopen issue #{number} in",
            number,
        )
        raw = json_object(response)
        self._apply(lambda store: store.put_issue(raw))
        return self._ref(raw)

    def remove_labels(self, number: int, labels: list[str], *, key: str | None = None) -> IssueRef:
        """One `DELETE /repos/{owner}/{repo}/issues/{n}/labels/{name}` per label the issue still carries."""
        have = {str(label["name"]) for label in self._require_raw(number).get("labels") or []}
        names: list[str] | None = None
        for name in [n for n in dict.fromkeys(labels) if n in have]:
            response = self._write(
                lambda: self.github.rest.issues.remove_label(self.gh.owner, self.gh.name, number, name),  # noqa: B023
                f"remove a label from issue #{number} in",
                number,
            )
            names = [str(label["name"]) for label in json_array(response)]
        if names is not None:
            kept = names
            self._apply(lambda store: store.set_issue_labels(number, kept))
        return self._require(number)

    def create_issue(self, title: str, body: str, labels: list[str], *, key: str | None = None) -> IssueRef:
        """One `POST /repos/{owner}/{repo}/issues`, the request key's marker at the end of the body."""
        unknown = sorted(set(labels) - set(self.known_labels()))
        if unknown:
            raise TrackerError(f"these labels do not exist in {self.gh.repo}: {', '.join(unknown)}")
        text = f"{body}\n\n{marker(key)}" if key else body
        fields: dict[str, Any] = {"title": title, "body": text, **({"labels": labels} if labels else {})}
        response = self._write(
            lambda: self.github.rest.issues.create(self.gh.owner, self.gh.name, **fields), "file an issue in", None
        )
        raw = json_object(response)
        self._apply(lambda store: store.put_issue(raw))
        return self._ref(raw)

    def _close_as_duplicate_by_comment(self, number: int, original: int, key: str | None) -> IssueRef:
        self.post_comment(number, f"Duplicate of #{original}", key=key)
        response = self._write(
            lambda: self.github.rest.issues.update(
                self.gh.owner, self.gh.name, number, state="closed", state_reason="not_planned"
            ),
            f"close issue #{number} in",
            number,
        )
        raw = json_object(response)
        self._apply(lambda store: put_issue(store, raw, number, original))
        return IssueRef(**{**self._ref(raw, original).__dict__, "note": DUPLICATE_FALLBACK.format(original=original)})
