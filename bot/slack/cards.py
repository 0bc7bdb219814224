"""Approval cards in the run's Slack thread: one per pending side-effect call, posted once, edited as it is decided.

What a card shows is rendered from its value (bot/slack/views/approval.py from workers/messages/approval.py). The
descriptive part is stored with the approval record, so later edits (decided, expired, done) show the same content
the approver saw.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import redis
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack import card_marker
from bot.slack.progress import channel_of
from bot.slack.views.approval import buttons, decided, describe, fallback_text
from tools.tracker import Tracker
from workers.approvals import records as approvals
from workers.approvals.card_once import ApprovalCard
from workers.approvals.records import Approval
from workers.messages.approval import CardView, Decision, view
from workers.runs.post_once import post_once
from workers.runs.state import PendingCall, RunState

log = logging.getLogger("atlas.approval_cards")


def post(
    client: WebClient, run: RunState, pending: Sequence[PendingCall], *, conn: redis.Redis, tracker: Tracker | None
) -> list[str]:
    """Post one card per pending call in the run's thread (skipping calls that already have one)."""
    posted: list[str] = []
    for call in pending:
        record = approvals.load(conn, call.pending_id)
        if record is None or record.card_ts or record.decided:
            continue  # not opened (nothing to decide), already on Slack, or decided on a card posted unrecorded
        posted.append(_post_one(client, conn, run, view(run, call, tracker, record.expires_at)))
    return posted


def _post_one(client: WebClient, conn: redis.Redis, run: RunState, card: CardView) -> str:
    """One call's card in the run's thread, posted once (workers/approvals/card_once.py): a retried job
    adopts the card a killed worker posted but never recorded, found in the thread by its marker."""
    described = describe(card)
    channel, thread = channel_of(run), run.origin.thread_ts or run.origin.message_ts
    mark = card_marker.approval_marker(card.pending_id)

    def send() -> tuple[str, str]:
        reply = client.chat_postMessage(
            channel=channel,
            thread_ts=thread,
            text=fallback_text(card.name, card.arguments),
            blocks=[*described, buttons(card.pending_id)],
            metadata=mark,
        )
        return str(reply["channel"]), str(reply["ts"])

    # Only a thread the app may not read (no channels:history) makes the retry post another card; the
    # place check then leaves only the recorded copy's buttons live, and a click on the first records it.
    slot = ApprovalCard(conn, card.pending_id, channel, json.dumps(described))
    return post_once(
        slot, channel, post=send, find=lambda since: card_marker.find_marked(client, channel, mark, since, thread)
    )[1]


def decision_of(approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False) -> Decision:
    """What a decided card's last lines say, from its approval record."""
    at = approval.decided_at or time.time()
    return Decision(approval.status, approval.decider, at, result=result, ok=ok, in_doubt=in_doubt)


def update(
    client: WebClient,
    approval: Approval,
    *,
    result: str | None = None,
    ok: bool = True,
    in_doubt: bool = False,
    shown: list[dict[str, Any]] | None = None,
    channel: str | None = None,
    ts: str | None = None,
) -> bool:
    """Edit a card: the content it showed, the decision (who, what, when), and the result if any. No buttons."""
    channel, ts = channel or approval.channel, ts or approval.card_ts
    if not channel or not ts:
        return False
    before = json.loads(approval.card_blocks) if approval.card_blocks else (shown or [])
    text, blocks = decided(before, decision_of(approval, result=result, ok=ok, in_doubt=in_doubt))
    try:
        client.chat_update(channel=channel, ts=ts, text=text, blocks=blocks)
        return True
    except SlackClientError as exc:
        log.warning("could not update approval card %s: %s", approval.pending_id, type(exc).__name__)
        return False


def tell_in_doubt(client: WebClient, run: RunState, approval: Approval, text: str) -> None:
    """Say in the thread that an approved action may or may not have happened, for a human to check (`text`: the
    notice as the reporter rendered it). A triage run has no thread: under its card."""
    thread = run.origin.thread_ts or run.origin.message_ts or approval.card_ts or None
    client.chat_postMessage(channel=approval.channel or channel_of(run), thread_ts=thread, text=text)
