"""An action another agent proposes over MCP (issue 27): never a write, a triage card a maintainer decides.

A maintainer's coding agent may at most *propose* a label, a comment or a close as duplicate. The
proposal becomes a triage run of its own whose one action is that tool call: its card goes to the
triage channel, and only an approver's click runs it (gate, ledger, audit, place check, as every
approval). The worker checks the call against the tracker before a card is posted (the issue is open,
the labels exist), as for triage's own suggestions. A proposal is claimed by the repository, the issue
and the exact call, so the same proposal sent twice (a client's retry) makes one card.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal

import redis
from pydantic import BaseModel, ConfigDict, Field

from atlas.triage_settings import TriageSettings
from workers.new_issues import claim
from workers.runs.state import Origin
from workers.runs.triage_record import CALL_PREFIX, TriageAction, TriageRecord

REASON_CHARS = 500
BODY_CHARS = 4000
TOOLS: dict[str, tuple[Literal["duplicates", "labels", "reply"], str, int]] = {
    "close_duplicate": ("duplicates", "close_issue", 1),
    "label": ("labels", "add_labels", 2),
    "comment": ("reply", "post_comment", 3),
}


class Proposal(BaseModel):
    """What an MCP client proposes; the fields the action does not use must be null."""

    model_config = ConfigDict(extra="forbid")
    issue_id: Annotated[int, Field(ge=1, description="The issue to act on, e.g. 174 for #174.")]
    action: Literal["label", "comment", "close_duplicate"] = Field(
        description="label: add labels; comment: post a comment; "
        "close_duplicate: close it as a duplicate of another issue."
    )
    labels: list[str] | None = Field(description="For label: the repository's own label names; else null.")
    body: Annotated[str, Field(max_length=BODY_CHARS)] | None = Field(
        description="For comment: the comment's Markdown; else null."
    )
    duplicate_of: Annotated[int, Field(ge=1)] | None = Field(
        description="For close_duplicate: the original issue; else null."
    )
    reason: Annotated[str, Field(min_length=1, max_length=REASON_CHARS)] = Field(
        description="Why, in a sentence or two: shown to the maintainer on the card."
    )


def problem(proposal: Proposal) -> str | None:
    """Why the proposal is not one action Atlas can draft (None when it is), as a sentence the client can act on."""
    needs = {"label": "labels", "comment": "body", "close_duplicate": "duplicate_of"}[proposal.action]
    given = {name for name in ("labels", "body", "duplicate_of") if getattr(proposal, name) not in (None, [], "")}
    if needs not in given:
        return f"action {proposal.action} needs {needs}"
    if given - {needs}:
        return f"action {proposal.action} takes only {needs}; set {', '.join(sorted(given - {needs}))} to null"
    if proposal.duplicate_of == proposal.issue_id:
        return "an issue cannot be a duplicate of itself"
    return None


def action(proposal: Proposal) -> TriageAction:
    """The one drafted tool call the card shows (never shadow, never auto: a proposal always waits for a click)."""
    kind, tool, step = TOOLS[proposal.action]
    arguments: dict[str, Any] = {"issue_id": proposal.issue_id}
    if proposal.action == "label":
        arguments["labels"] = list(dict.fromkeys(proposal.labels or []))
    elif proposal.action == "comment":
        arguments["body"] = proposal.body
    else:
        arguments.update(reason="duplicate", duplicate_of=proposal.duplicate_of)
    return TriageAction(
        kind=kind, mode="draft", tool=tool, arguments=arguments, call_id=f"{CALL_PREFIX}{kind}", step=step
    )


def claim_key(repo: str, drafted: TriageAction) -> str:
    digest = hashlib.sha256(json.dumps([drafted.tool, drafted.arguments], sort_keys=True).encode()).hexdigest()[:24]
    return f"atlas:triage:proposal:{repo}#{drafted.arguments['issue_id']}:{digest}"


def propose(
    conn: redis.Redis,
    queue_name: str,
    repo: str,
    triage: TriageSettings,
    proposal: Proposal,
    client: str,
    channel: str | None = None,
) -> tuple[str, bool]:
    """Queue the proposal's triage run (its card is posted by a worker in `channel`, else the triage channel); (run
    id, whether this call started it); ("", False) when the client is over ATLAS_MCP_PROPOSAL_RATE (nothing queued:
    the client is told)."""
    drafted = action(proposal)
    record = TriageRecord(
        repo=repo, issue=proposal.issue_id, actions=[drafted], proposal={"by": client, "reason": proposal.reason}
    )
    origin = Origin(kind=triage.platform or "slack", channel=channel or triage.channel)
    return claim.start(
        conn,
        queue_name,
        record,
        origin,
        key=claim_key(repo, drafted),
        limit=triage.proposal_rate,
        scope=f"client:{client}",
    )
