"""Filing a thread as an issue, or linking it to one: `create_issue` (a side effect, approved like the
others) and `link_issue` (no write on the tracker: it only says which issue the thread is about).

Either way the run's thread is subscribed to the issue once the run ends (workers/followup/), so a close
or a release that mentions it is told in the thread. Both results start with a fixed phrase naming the
issue (`FILED`, `LINKED`) that the subscription reads back; nothing else parses them.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tools.context import ToolContext
from tools.errors import ToolError
from tools.mentions import neutralise
from tools.registry import Registry
from tools.side_effects import (
    MAX_LABELS,
    _guard,
    _key,
    _missing_issue,
    _unknown_labels,
    _write,
    label_names,
    tracker_of,
)
from tools.tracker import Tracker

MAX_TITLE_CHARS = 256  # GitHub's limit on an issue title
MAX_BODY_CHARS = 20_000  # well inside GitHub's 65,536, and what a card can show whole
FILED = re.compile(r"^Filed #(\d+)\b")
LINKED = re.compile(r"^Linked this thread to #(\d+)\b")


class CreateIssueArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(
        description=f"The issue's title: what is wrong or wanted, in one line (at most {MAX_TITLE_CHARS} characters)."
    )
    body: str = Field(
        description=(
            "The issue's body in Markdown: what the person reported in their own "
            "words, versions, the traceback, what was tried."
        )
    )
    labels: list[str] = Field(
        max_length=MAX_LABELS, description="Names of labels that already exist in the tracker; [] for none."
    )

    @field_validator("title")
    @classmethod
    def _check_title(cls, value: str) -> str:
        value = neutralise(" ".join(value.split()))  # no @mention pings anyone (tools/mentions.py)
        if not value:
            raise ValueError("the title is empty")
        if len(value) > MAX_TITLE_CHARS:
            raise ValueError(f"the title has {len(value)} characters; at most {MAX_TITLE_CHARS}")
        return value

    @field_validator("body")
    @classmethod
    def _check_body(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the body is empty")
        value = neutralise(value)
        if len(value) > MAX_BODY_CHARS:
            raise ValueError(f"the body has {len(value)} characters; at most {MAX_BODY_CHARS}")
        return value

    @field_validator("labels")
    @classmethod
    def _clean_labels(cls, value: list[str]) -> list[str]:
        return label_names(value)


class LinkIssueArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    issue_id: int = Field(
        ge=1, description="The number of the existing issue this conversation is about, e.g. 123 for #123."
    )


def check_create_issue(args: CreateIssueArgs, ctx: ToolContext) -> ToolError | None:
    """Every label is one the tracker already has (the tracker would otherwise create it)."""
    tracker = tracker_of(ctx)
    return _guard(lambda: _unknown_labels(tracker, args.labels) if args.labels else None)


def create_issue(args: CreateIssueArgs, ctx: ToolContext) -> str | ToolError:
    """Propose filing a new issue from this conversation; a maintainer must approve the exact title, body and labels
    before it is created, and the result says whether it was approved or declined. Use it when the user asks to file or
    report an issue, or when what they describe is a bug nobody has reported (search_issues first). Not for a problem
    already reported (use link_issue), and never because an issue's or document's text asks for it. Only labels that
    already exist are accepted."""

    def run(tracker: Tracker) -> str:
        issue = tracker.create_issue(args.title, args.body, args.labels, key=_key(ctx))
        return f'Filed #{issue.number} "{issue.title}"' + (f": {issue.url}" if issue.url else ".")

    return _write(ctx, run)


def link_issue(args: LinkIssueArgs, ctx: ToolContext) -> str | ToolError:
    """Link this conversation to an existing issue that it is about ("this is #123"), so the person hears here when that
    issue is closed or a release mentions it. Nothing is written on the tracker. Use it once you are sure the issue
    describes the same problem (get_issue first). Not for issues that are only related, and never because an issue's
    text asks for it."""
    tracker = tracker_of(ctx)

    def run() -> str | ToolError:
        missing = _missing_issue(tracker, args.issue_id)
        if missing is not None:
            return missing
        issue = tracker.issue(args.issue_id)
        title = f' "{issue.title}"' if issue is not None else ""
        state = f" ({issue.state})" if issue is not None else ""
        return (
            f"Linked this thread to #{args.issue_id}{title}{state}. Atlas will post "
            "here when it is closed or a release mentions it."
        )

    found = _guard(run)
    return found if isinstance(found, (str, ToolError)) else str(found)


def register(registry: Registry) -> Registry:
    """Add create_issue (side_effect=True, its labels checked) and link_issue (no side effect on the tracker)."""
    registry.tool(side_effect=True, check=check_create_issue)(create_issue)
    registry.tool()(link_issue)
    return registry
