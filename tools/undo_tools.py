"""The writes of an Undo of triage (workers/new_issues/undo.py): reopen an issue Atlas closed, remove labels Atlas
added. Side effects like tools/side_effects.py's, run only through the approval gate, but never offered to a
model: they live in their own registry (`undo_registry`), which only the triage inbox's Undo runs with.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Registry
from tools.side_effects import MAX_LABELS, _guard, _key, label_names, tracker_of


class ReopenIssueArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    issue_id: int = Field(ge=1, description="The issue number to reopen.")


class RemoveLabelsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    issue_id: int = Field(ge=1, description="The issue number.")
    labels: list[str] = Field(min_length=1, max_length=MAX_LABELS, description="Names of labels to remove.")

    @field_validator("labels")
    @classmethod
    def _clean_labels(cls, value: list[str]) -> list[str]:
        return label_names(value)


def reopen_issue(args: ReopenIssueArgs, ctx: ToolContext) -> str | ToolError:
    """Reopen an issue Atlas closed (an approved Undo of triage)."""
    tracker = tracker_of(ctx)

    def run() -> str:
        issue = tracker.issue(args.issue_id)
        if issue is not None and issue.state != "closed":
            return f"#{args.issue_id} is open already; nothing to reopen."
        tracker.reopen_issue(args.issue_id, key=_key(ctx))
        return f"Reopened #{args.issue_id}."

    return _guard(run)


def remove_labels(args: RemoveLabelsArgs, ctx: ToolContext) -> str | ToolError:
    """Remove labels Atlas added (an approved Undo of triage); those the issue no longer carries are skipped."""
    tracker = tracker_of(ctx)

    def run() -> str:
        after = tracker.remove_labels(args.issue_id, args.labels, key=_key(ctx))
        return (
            f"Removed {', '.join(args.labels)} from #{args.issue_id}. Its "
            f"labels now: {', '.join(after.labels) or 'none'}."
        )

    return _guard(run)


def undo_registry(base: Registry) -> Registry:
    """`base` (the worker's tools, for the Undo's comment) with the two Undo writes after it."""
    undo = Registry()
    undo.tool(side_effect=True)(reopen_issue)
    undo.tool(side_effect=True)(remove_labels)
    return base.extended(*(t for name in undo.names() if (t := undo.get(name)) is not None))
