"""`propose_action` over MCP: another agent proposes a label, a comment or a close as duplicate (issue 27).

Nothing is written: the proposal is queued as a triage run whose card a worker posts in the repository's triage
channel (workers/new_issues/proposals.py), and only an approver's click there runs it. Listed only when a triage
channel is configured. With several repositories served, the call names its own (`repo`, issue 38) and the run
records it. The client is told the receipt and the card as it stands, rendered by the plain-text surface
(bot/plain/views/triage.py) from the same value Slack and Discord render. Errors are values, never a stack trace.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import redis
from pydantic import ValidationError

from atlas.settings import Settings
from atlas.text import clip
from bot.mcp import repos, wording
from bot.plain.views.triage import triage_text
from workers.messages.triage import triage_card_of
from workers.new_issues.proposals import Proposal, problem, propose
from workers.runs.store import RunStore

log = logging.getLogger("atlas.mcp")
NAME = "propose_action"
DESCRIPTION = (
    "Propose an action on an issue for a maintainer to approve: add labels, post a comment, or close it as a "
    "duplicate of another issue. Nothing changes now: the proposal becomes an approval card in the maintainers' "
    "triage channel, and only an approver's click runs it. Use it when your findings call for a change on "
    "GitHub; say why in `reason`. Not for reading: use the search and get tools."
)
CLIENT_CHARS = 60


def tool(settings: Settings) -> types.Tool:
    """The tool as listed; with several repositories, `repo` is one of its required fields."""
    schema = Proposal.model_json_schema()
    schema.pop("title", None)
    if settings.org.many:
        listed = ", ".join(settings.repos)
        schema["properties"]["repo"] = {"type": "string", "description": wording.REPO_FIELD.format(repos=listed)}
        schema["required"] = [*schema.get("required", []), "repo"]
    return types.Tool(
        name=NAME,
        description=DESCRIPTION,
        input_schema=schema,
        annotations=types.ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
    )


@dataclass(frozen=True)
class Asked:
    """One valid proposal and the repository it is on."""

    proposal: Proposal
    repo: str


def call(settings: Settings, arguments: dict[str, Any], client: str | None, conn: redis.Redis) -> tuple[str, bool]:
    """(text, ok) for one proposal (never raises)."""
    asked = _asked(settings, arguments, conn)
    if isinstance(asked, str):
        return asked, False
    proposal, repo = asked.proposal, asked.repo
    who = clip(client or "an MCP client", CLIENT_CHARS, "...")
    triage = settings.triage
    try:
        channel = settings.org.triage_channel(repo, triage.channel)  # the repository's own, else the default
        run_id, started = propose(conn, settings.queue_name, repo, triage, proposal, who, channel=channel)
        card = triage_card_of(RunStore(conn).load(run_id), None) if run_id else None
    except (redis.RedisError, OSError) as exc:
        log.warning("proposal over MCP not queued: %s", exc)
        return wording.UNREACHABLE, False
    if not run_id:
        return wording.RATE.format(rate=triage.proposal_rate), False
    ref = f"{repo}#{proposal.issue_id}" if settings.org.many else f"#{proposal.issue_id}"
    receipt = (wording.PROPOSED if started else wording.ALREADY).format(ref=ref, run=run_id)
    return (f"{receipt}\n\n{triage_text(card)}" if card is not None else receipt), True


def _asked(settings: Settings, arguments: dict[str, Any], conn: redis.Redis) -> Asked | str:
    """The proposal and its repository, or the error a client can act on."""
    fields = dict(arguments)
    given = fields.pop("repo", None) if settings.org.many else None
    try:
        proposal = Proposal.model_validate(fields, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
        extra = wording.INVALID_REPO if settings.org.many else ""
        return wording.INVALID.format(name=NAME, where=where, msg=first.get("msg"), repo=extra)
    why = problem(proposal)
    if why:
        return wording.UNFIT.format(why=why)
    repo, ok = repos.target(settings, conn, given)
    return Asked(proposal, repo) if ok else repo
