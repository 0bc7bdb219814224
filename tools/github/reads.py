"""The GitHub tracker's reads: an issue as a write would see it, the labels, a user's role, an issue's comments.

Lookups ask GitHub, not the synced folder: the approval card and the check before a write see the issue as it is
now. An issue transferred elsewhere (a followed redirect, or another `number`) is refused and leaves the folder; a
pull request is refused for writes (tools/github/refusals.py). The writes are tools/github/tracker.py's.
"""

from __future__ import annotations

from typing import Any

from atlas.github_client import READ_ISSUES
from datasets.github import store as github_store
from tools.errors import TrackerError
from tools.github import refusals
from tools.github.calls import RepositoryCalls, json_array, json_object
from tools.tracker import IssueRef, epoch

READ_METADATA = "Metadata: read"  # what GitHub's collaborator permission endpoint needs


class IssueReads(RepositoryCalls):
    """One repository's issues read over REST; built as `RepositoryCalls` is."""

    def url(self, number: int) -> str:
        return f"{self.gh.web_url}/{self.gh.repo}/issues/{number}"

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


def put_issue(store: github_store.Store, raw: dict[str, Any], number: int, duplicate_of: int | None) -> None:
    """The issue as GitHub returned it, and which issue it duplicates when it was closed as a duplicate."""
    store.put_issue(raw)
    if duplicate_of:
        store.set_duplicate_of(number, duplicate_of)
