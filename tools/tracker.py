"""The issue tracker the side-effect tools write through: the interface, and what it returns about an issue.

`Tracker` is what the side-effect tools need from any tracker: look an issue up, list the labels
that exist, add labels, post a comment, close an issue; and, for an Undo of triage, reopen it and remove labels.
`for_repo` takes the repository explicitly: an install serving several (issue 38) hands a card the tracker that
routes to each (workers/process/repo_parts.py), and a one-repository tracker answers for its own alone.
The Orbit demo's SQLite tracker is tools/demo_tracker.py. The GitHub tracker (tools/github/tracker.py) implements
the same methods over the REST API, and `settle`, which finds an in-doubt write on the issue (a comment's hidden
marker with the request key, the state it was closed with, the labels). `tools/trackers.py` picks one from the
settings; it reaches the tools through `ToolContext.tracker`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

CloseReason = Literal["completed", "not_planned", "duplicate"]
BOT_AUTHOR = "atlas"


@dataclass(frozen=True)
class IssueRef:
    """What approval cards and tool results show about an issue."""

    number: int
    title: str
    state: str
    labels: tuple[str, ...]
    url: str | None
    duplicate_of: int | None = None
    note: str | None = None  # something the maintainer should know about how the write was done
    closed_at: float | None = None  # epoch seconds, when closed and the tracker says when
    state_reason: str | None = None  # GitHub's: completed, not_planned, duplicate, reopened (None where unknown)


def epoch(stamp: object) -> float | None:
    """An ISO 8601 time as the trackers write it (`2026-12-01T10:00:00Z`) in epoch seconds; None when there is none."""
    if not isinstance(stamp, str) or not stamp.strip():
        return None
    try:
        moment = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


class Tracker(Protocol):
    """The writes Atlas may propose, and the lookups needed to check them before a card is shown."""

    def issue(self, number: int) -> IssueRef | None:
        """One issue, or None when the tracker has no such number."""
        ...

    def known_labels(self) -> list[str]:
        """Every label that exists in the tracker, sorted."""
        ...

    def add_labels(self, number: int, labels: list[str], *, key: str | None = None) -> IssueRef:
        """Add existing labels to an issue (labels it already has are kept once); the issue after."""
        ...

    def post_comment(self, number: int, body: str, *, key: str | None = None) -> str:
        """Post a comment as the bot; returns where it landed (a URL or 'issue #N, comment K')."""
        ...

    def close_issue(
        self, number: int, reason: CloseReason, duplicate_of: int | None, *, key: str | None = None
    ) -> IssueRef:
        """Close an issue with a reason (and the original for duplicates); the issue after."""
        ...

    def reopen_issue(self, number: int, *, key: str | None = None) -> IssueRef:
        """Reopen a closed issue (an Undo of triage, workers/new_issues/undo.py); the issue after."""
        ...

    def remove_labels(self, number: int, labels: list[str], *, key: str | None = None) -> IssueRef:
        """Remove labels from an issue (those it does not carry are skipped); the issue after."""
        ...

    def create_issue(self, title: str, body: str, labels: list[str], *, key: str | None = None) -> IssueRef:
        """Open a new issue with existing labels (the request key hidden in its body where the tracker has no
        journal); the issue as created."""
        ...

    def url(self, number: int) -> str | None:
        """The issue's web page, when the tracker has one."""
        ...

    def settle(self, tool: str, arguments: dict[str, Any], key: str) -> str | None:
        """An in-doubt call (claimed, never recorded): its result text if the tracker shows it happened, else None."""
        ...

    def for_repo(self, repo: str) -> Tracker | None:
        """The tracker of `repo` (`owner/b`): this one for its own repository, another's where several are served,
        None for one not served (a card then shows the issue's number only)."""
        ...
