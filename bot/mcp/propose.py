"""`propose_action` over MCP: another agent proposes a label, a comment or a close as duplicate (issue 27).

Nothing is written: the proposal is queued as a triage run whose card a worker posts in the triage
channel (workers/new_issues/proposals.py), and only an approver's click there runs it. Listed only when a
triage channel is configured. Errors are values the client can act on, never a stack trace.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types as types
import redis
from pydantic import ValidationError

from atlas.settings import Settings
from atlas.text import clip
from workers.new_issues.proposals import Proposal, problem, propose

log = logging.getLogger("atlas.mcp")
NAME = "propose_action"
DESCRIPTION = (
    "Propose an action on an issue for a maintainer to approve: add labels, post a comment, or close it as a "
    "duplicate of another issue. Nothing changes now: the proposal becomes an approval card in the maintainers' "
    "triage channel, and only an approver's click runs it. Use it when your findings call for a change on "
    "GitHub; say why in `reason`. Not for reading: use the search and get tools."
)
CLIENT_CHARS = 60


def tool() -> types.Tool:
    schema = Proposal.model_json_schema()
    schema.pop("title", None)
    return types.Tool(
        name=NAME,
        description=DESCRIPTION,
        input_schema=schema,
        annotations=types.ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
    )


def call(settings: Settings, arguments: dict[str, Any], client: str | None) -> tuple[str, bool]:
    """(text, ok) for one proposal (never raises)."""
    try:
        proposal = Proposal.model_validate(arguments, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
        return (
            f"Error: invalid {NAME} arguments: {where}: {first.get('msg')}. Hint: give issue_id, action, labels, body, "
            "duplicate_of and reason; the fields the action does not use are null."
        ), False
    why = problem(proposal)
    if why:
        return f"Error: {why}. Hint: label needs labels, comment needs body, close_duplicate needs duplicate_of.", False
    repo = settings.github.repo if settings.github is not None else "demo"
    who = clip(client or "an MCP client", CLIENT_CHARS, "...")
    try:
        from atlas.connection import connect

        run_id, started = propose(connect(settings), settings.queue_name, repo, settings.triage, proposal, who)
    except (redis.RedisError, OSError) as exc:
        log.warning("proposal over MCP not queued: %s", exc)
        return (
            "Error: Atlas could not queue the proposal (its Redis is not reachable). Hint: try again in a minute.",
            False,
        )
    if not run_id:
        return (
            f"Error: this client proposed {settings.triage.proposal_rate} actions in the last hour, the most "
            "ATLAS_MCP_PROPOSAL_RATE allows. Hint: try again later; nothing was queued.",
            False,
        )
    if not started:
        return f"Already proposed: the same action on #{proposal.issue_id} is on a card already (run {run_id}).", True
    return (
        f"Proposed: a card for #{proposal.issue_id} goes to the maintainers' triage channel (run {run_id}). Nothing "
        "changes on GitHub unless an approver clicks Approve."
    ), True
