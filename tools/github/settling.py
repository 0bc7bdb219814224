"""Settling an in-doubt write: did the request GitHub never confirmed happen after all?

Comments carry a hidden marker `<!-- atlas:KEY -->` with the request key; `settle` finds it on the issue, or the
issue closed as asked, or the labels there; for a new issue, the marker at the end of its body among the newest
issues. What it finds is applied to the synced folder and answered as the write's own result, so a write is never
sent twice (tools/approvals' ledger asks this before a retry).
"""

from __future__ import annotations

from typing import Any

from atlas.github_client import READ_ISSUES
from tools.github.calls import json_array
from tools.github.reads import IssueReads, put_issue

SETTLE_PAGES = 3  # an issue filed in doubt is among the newest 300 (the settle runs right after the write)


def marker(key: str) -> str:
    """The hidden line that ties a comment to the request that wrote it."""
    return f"<!-- atlas:{key} -->"


class Settling(IssueReads):
    """The reads, and `settle` over them."""

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
                self._apply(lambda store: put_issue(store, raw, number, int(original) if original else None))
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
