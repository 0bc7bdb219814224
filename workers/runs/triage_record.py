"""What a triage run records (issue 24): the issue, the suggestions, and each action's mode and fate.

Kept inside the run record (`RunState.triage`), so `atlas runs show` and every worker see the same
thing. Each drafted action is its own pending call with its own step, so it is decided, resumed and
audited alone (workers/new_issues/).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

CALL_PREFIX = "triage-"  # a triage approval's pending id is `{run}.triage-{kind}`
ActionKind = Literal["duplicates", "labels", "reply", "undo"]  # undo: workers/new_issues/undo.py
ActionStatus = Literal[
    "shadow", "pending", "approved", "denied", "expired", "done", "failed", "in_doubt", "auto", "superseded"
]


class TriageAction(BaseModel):
    """One suggestion turned into an action: its tool call, and what became of it."""

    kind: ActionKind
    mode: Literal["shadow", "draft", "auto"]
    tool: str  # close_issue, add_labels, post_comment; undo_triage
    arguments: dict[str, Any]
    call_id: str
    step: int
    status: ActionStatus = "pending"
    decider: str = ""
    result: str = ""


class TriageRecord(BaseModel):
    """The issue a triage run is about, what the offline triage suggested, and the card."""

    repo: str  # `owner/name`, or `demo` for the demo tracker
    issue: int
    title: str = ""
    author: str = ""
    url: str | None = None
    suggestions: dict[str, Any] = Field(default_factory=dict)  # Suggestions.as_json() plus evidence of labels
    thresholds: str | None = None  # the card's thresholds line (new_issues.wording.thresholds_line); None: none used
    actions: list[TriageAction] = Field(default_factory=list)
    superseded: str = ""  # "closed by @x", "labelled by @x", "answered by @x": the card's buttons went
    card_channel: str = ""
    card_ts: str = ""  # Slack ts or Discord message id of the one card
    card_posting: float = 0.0  # when a worker set out to post the card (epoch seconds): a retry looks for it first
    proposal: dict[str, Any] | None = (
        None  # {"by", "reason"}: an action an MCP client proposed (workers/new_issues/proposals.py)
    )
    dropped: list[str] = Field(
        default_factory=list
    )  # actions the tracker refused before the card (closed, unknown label)


def is_triage(pending_id: str) -> bool:
    """Whether an approval belongs to a triage card: that card is re-rendered whole by the run's job, never
    edited for one approval alone (the other actions keep their buttons)."""
    return pending_id.partition(".")[2].startswith(CALL_PREFIX)
