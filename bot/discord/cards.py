"""Approval cards in the run's Discord channel or thread: one per pending side-effect call, as an
ordinary bot message (an approval may wait a day, longer than an interaction token lives), edited
as it is decided.

A card is posted once across a kill (workers/approvals/card_once.py): its create-message nonce, derived
from the pending id, makes the post idempotent for a few minutes; a job retried later than that finds
the card in the channel by the pending id its buttons carry (bot/discord/card_marker.py). What a card
shows is gathered as on Slack (workers/messages/approval.py) and rendered by bot/discord/views/card.py; the
content it showed is stored with the approval record, so a decided card keeps what the approver saw.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import redis

from bot.discord import card_marker
from bot.discord.rest import DiscordError, DiscordREST
from bot.discord.views import card as card_view
from bot.discord.views.card import card_buttons, card_text
from bot.discord.views.card_embeds import card_embeds
from bot.discord.views.notices import in_doubt_text
from tools.tracker import Tracker
from workers.approvals import ledger
from workers.approvals import records as approvals
from workers.approvals.card_once import ApprovalCard
from workers.approvals.records import Approval
from workers.messages.approval import Decision, view
from workers.messages.notices import InDoubtNotice
from workers.runs.post_once import post_once
from workers.runs.state import PendingCall, RunState

log = logging.getLogger("atlas.discord.surface")


def post(
    rest: DiscordREST,
    conn: redis.Redis,
    run: RunState,
    pending: list[Any],
    *,
    tracker: Tracker | None,
    channel: Callable[[], str],
) -> list[str]:
    """One card per pending call in `channel()` (where the run speaks; asked only when a card is due),
    skipping calls already carded. The new cards' message ids."""
    posted: list[str] = []
    for raw in pending:
        call = raw if isinstance(raw, PendingCall) else PendingCall.model_validate(raw)
        record = approvals.load(conn, call.pending_id)
        if record is None or record.card_ts or record.decided:
            # not opened (nothing to decide), already on Discord, or decided (expired) before its card was recorded
            continue
        card = view(run, call, tracker, record.expires_at)
        text = card_text(card)
        posted.append(_post_one(rest, conn, channel(), call.pending_id, text, card.name, card.arguments))
    return posted


def _post_one(
    rest: DiscordREST, conn: redis.Redis, channel: str, pending_id: str, text: str, name: str, arguments: dict[str, Any]
) -> str:
    """One card, posted once (workers/approvals/card_once.py). The nonce makes the post idempotent for a
    few minutes (Discord returns the message it made); a job retried later than that, after a worker
    died before recording the card, finds it in the channel by the pending id its buttons carry."""

    def send() -> tuple[str, str]:
        reply = rest.create_message(
            channel,
            {
                "content": text,
                "embeds": card_embeds(name, arguments),
                "components": card_buttons(pending_id),
                "nonce": card_nonce(pending_id),
                "enforce_nonce": True,
            },
        )
        return channel, str(reply["id"])

    slot = ApprovalCard(conn, pending_id, channel, json.dumps({"content": text}))
    return post_once(slot, channel, post=send, find=lambda since: card_marker.find(rest, channel, [pending_id], since))[
        1
    ]


def update(
    rest: DiscordREST, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False
) -> bool:
    """Edit a decided card (decided_payload); False when it has no message or Discord refused the edit."""
    if not approval.channel or not approval.card_ts:
        return False
    try:
        rest.edit_message(
            approval.channel, approval.card_ts, decided_payload(approval, result=result, ok=ok, in_doubt=in_doubt)
        )
        return True
    except DiscordError as exc:
        log.warning("could not update approval card %s: %s", approval.pending_id, exc.status)
        return False


def tell_in_doubt(
    rest: DiscordREST, channel: str, run: RunState, approval: Approval, issue_url: str | None = None
) -> None:
    """Say in `channel` that an approved action may or may not have happened, for a human to check
    (at `issue_url`, the issue's page on the tracker, when it has one)."""
    user = approval.decider or run.origin.user
    text = in_doubt_text(InDoubtNotice(approval.name, approval.issue or "?", user, issue_url))
    rest.create_message(channel, {"content": text})


def card_nonce(pending_id: str) -> str:
    """A card's create-message nonce: derived from its pending id, within Discord's 25 characters."""
    return hashlib.sha256(pending_id.encode()).hexdigest()[:25]


def decided_payload(
    approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False
) -> dict[str, Any]:
    """A card's content after a decision (views/card.py), from what the card showed when it was posted."""
    shown = json.loads(approval.card_blocks).get("content", "") if approval.card_blocks.startswith("{") else ""
    decided_at = approval.decided_at or time.time()
    return card_view.decided_payload(
        shown, Decision(approval.status, approval.decider, decided_at, result=result, ok=ok, in_doubt=in_doubt)
    )


def clicked_payload(conn: redis.Redis, approval: Approval, closed_step: bool) -> dict[str, Any]:
    """The card as the click's UPDATE_MESSAGE shows it. A click that closed the step queued the resume first, and a
    quick worker may show the call's result on the card before Discord applies this update, which would hide it: a
    result already recorded is shown here too. A decision that leaves calls open queued nothing (the click stays one
    round trip), and a Redis that fails here leaves the result to the worker's own edit."""
    try:
        done = ledger.shown_result(conn, approval.run_id, approval.call_id) if closed_step else {}
    except redis.RedisError:
        done = {}
    return decided_payload(approval, **done)
