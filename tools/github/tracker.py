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
(tools/github/refusals.py).
"""

from __future__ import annotations

from typing import Any

from atlas.github_client import READ_ISSUES
from datasets.github import store as github_store
from tools.errors import TrackerError
from tools.github import refusals
from tools.github.calls import RepositoryCalls, json_array, json_object
from tools.tracker import CloseReason, IssueRef, epoch

READ_METADATA = "Metadata: read"  # what GitHub's collaborator permission endpoint needs
SETTLE_PAGES = 3  # an issue filed in doubt is among the newest 300 (the settle runs right after the write)
DUPLICATE_FALLBACK = (
    'GitHub did not accept closing as a duplicate here, so Atlas commented "Duplicate of #{original}" '
    "and closed it as not planned."
)


def marker(key: str) -> str:
    """The hidden line that ties a comment to the request that wrote it."""
    return f"<!-- atlas:{key} -->"


class GitHubTracker(RepositoryCalls):
    """One repository's issues as the tracker (see module doc); built as `RepositoryCalls` is."""

    def url(self, number: int) -> str:
        return f"{self.gh.web_url}/{self.gh.repo}/issues/{number}"

    # -- lookups ---------------------------------------------------------------------------------
    def issue(self, number: int) -> IssueRef | None:
        """The issue as a write would see it; None when there is none, TrackerError when it must not be written."""
        raw = self._raw_issue(number)
        if raw is None:
            return None
        refusals.refuse_pull_request(raw, number)
        return self._ref(raw)

    def known_labels(self) -> list[str]:
        names: list[str] = []
        page = 1
        while True:
            response = self._call(
                lambda: self.github.rest.issues.list_labels_for_repo(
                    self.gh.owner,
                    self.gh.name,
                    per_page=100,
                    page=page,  # noqa: B023  # used in this iteration
                ),
                "list the labels of",
                READ_ISSUES,
            )
            names.extend(str(label["name"]) for label in json_array(response))
            if 'rel="next"' not in response.headers.get("link", ""):
                return sorted(names)
            page += 1

    def permission(self, login: str) -> str:
        """`login`'s base role on the repository (admin, write, read or none), whatever their org membership's
        visibility: a webhook's author_association says CONTRIBUTOR for a private member (issue 35 item 10)."""
        repos = self.github.rest.repos
        response = self._call(
            lambda: repos.get_collaborator_permission_level(self.gh.owner, self.gh.name, login),
            "read a user's permission on",
            READ_METADATA,
        )
        return str(json_object(response).get("permission") or "none")

    # -- writes ------------------------------------------------------------------------------------
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
        self._apply(lambda store: _put_issue(store, raw, number, duplicate_of))
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

    def settle(self, tool: str, arguments: dict[str, Any], key: str) -> str | None:
        """For an in-doubt call: the result text if the write is found on GitHub, else None."""
        if tool == "create_issue":
            return self._settle_created(key)
        number = int(arguments.get("issue_id", 0))
        if tool == "post_comment":
            for comment in self._comments(number):
                if marker(key) in str(comment.get("body") or ""):
                    self._apply(lambda store: store.put_comment(comment, number))  # noqa: B023  # applied before the return
                    return f"Posted the comment on #{number} ({comment.get('html_url') or self.url(number)})."
            return None
        raw = self._raw_issue(number)
        if raw is None:
            return None
        if tool == "close_issue" and raw.get("state") == "closed":
            reason = arguments.get("reason")
            if raw.get("state_reason") == reason or (
                reason == "duplicate" and raw.get("state_reason") == "not_planned"
            ):
                original = arguments.get("duplicate_of")
                self._apply(lambda store: _put_issue(store, raw, number, int(original) if original else None))
                how = (
                    f"as a duplicate of #{original}" if reason == "duplicate" else f"as {str(reason).replace('_', ' ')}"
                )
                return f'Closed #{number} "{raw.get("title")}" {how}.'
        if tool == "add_labels":
            have = {label["name"] for label in raw.get("labels") or []}
            wanted = list(arguments.get("labels") or [])
            if wanted and set(wanted) <= have:
                self._apply(lambda store: store.put_issue(raw))
                return (
                    f'Labeled #{number} "{raw.get("title")}" with {", ".join(wanted)}. '
                    f"Its labels now: {', '.join(sorted(have))}."
                )
        if tool == "reopen_issue" and raw.get("state") == "open":
            return f"Reopened #{number}."
        if tool == "remove_labels" and not set(arguments.get("labels") or []) & {
            label["name"] for label in raw.get("labels") or []
        }:
            return f"Removed {', '.join(arguments.get('labels') or [])} from #{number}."
        return None

    # -- internals -------------------------------------------------------------------------------
    def _settle_created(self, key: str) -> str | None:
        """The newest issues (a few pages) searched for the marker of `key`: an issue filed in doubt is among them."""
        for page in range(1, SETTLE_PAGES + 1):
            response = self._call(
                lambda page=page: self.github.rest.issues.list_for_repo(  # type: ignore[misc]
                    self.gh.owner, self.gh.name, state="all", sort="created", direction="desc", per_page=100, page=page
                ),
                "list the issues of",
                READ_ISSUES,
            )
            for raw in json_array(response):
                if "pull_request" not in raw and marker(key) in str(raw.get("body") or ""):
                    self._apply(lambda store: store.put_issue(raw))  # noqa: B023  # applied before the return
                    return (
                        f'Filed #{raw["number"]} "{raw.get("title")}": '
                        f"{raw.get('html_url') or self.url(int(raw['number']))}"
                    )
            if 'rel="next"' not in response.headers.get("link", ""):
                return None
        return None

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
        self._apply(lambda store: _put_issue(store, raw, number, original))
        return IssueRef(**{**self._ref(raw, original).__dict__, "note": DUPLICATE_FALLBACK.format(original=original)})

    def _comments(self, number: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        page = 1
        while True:
            response = self._call(
                lambda: self.github.rest.issues.list_comments(
                    self.gh.owner,
                    self.gh.name,
                    number,
                    per_page=100,
                    page=page,  # noqa: B023  # used in this iteration
                ),
                f"read the comments of issue #{number} in",
                READ_ISSUES,
                number=number,
            )
            found.extend(json_array(response))
            if 'rel="next"' not in response.headers.get("link", ""):
                return found
            page += 1

    def _raw_issue(self, number: int | None) -> dict[str, Any] | None:
        if not number:
            return None
        try:
            raw = json_object(
                self._call(
                    lambda: self.github.rest.issues.get(self.gh.owner, self.gh.name, number),
                    f"read issue #{number} in",
                    READ_ISSUES,
                    number=number,
                )
            )
        except TrackerError as exc:
            if getattr(exc, "status", None) == 404:
                return None
            raise
        elsewhere = refusals.moved_elsewhere(raw, number, self.gh.repo)
        if elsewhere is not None:
            self._forget(number)
            raise refusals.transferred(number, elsewhere)
        return raw

    def _require_raw(self, number: int) -> dict[str, Any]:
        raw = self._raw_issue(number)
        if raw is None:
            raise TrackerError(f"no issue #{number} in {self.gh.repo}")
        refusals.refuse_pull_request(raw, number)
        return raw

    def _require(self, number: int) -> IssueRef:
        return self._ref(self._require_raw(number))

    def _ref(self, raw: dict[str, Any], duplicate_of: int | None = None) -> IssueRef:
        return IssueRef(
            int(raw["number"]),
            str(raw.get("title") or ""),
            str(raw.get("state") or "open"),
            tuple(sorted(str(label["name"]) for label in raw.get("labels") or [])),
            raw.get("html_url") or self.url(int(raw["number"])),
            duplicate_of,
            closed_at=epoch(raw.get("closed_at")) if raw.get("state") == "closed" else None,
            state_reason=raw.get("state_reason") if isinstance(raw.get("state_reason"), str) else None,
        )


def _put_issue(store: github_store.Store, raw: dict[str, Any], number: int, duplicate_of: int | None) -> None:
    """The issue as GitHub returned it, and which issue it duplicates when it was closed as a duplicate."""
    store.put_issue(raw)
    if duplicate_of:
        store.set_duplicate_of(number, duplicate_of)
