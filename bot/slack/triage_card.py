"""The triage card on Slack: one message per issue in ATLAS_TRIAGE_CHANNEL, posted once, updated in place.

What it shows is rendered from its value (bot/slack/views/triage.py from workers/messages/triage.py). The card's
channel is recorded on each approval before it is posted and its ts after (workers/approvals/triage_card_once.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient

from bot.slack import card_marker
from bot.slack.views.triage import fallback_text, triage_blocks
from tools.tracker import Tracker
from workers.approvals import triage_card_once
from workers.messages.triage import triage_card_now, triage_card_of
from workers.runs.state import RunState
from workers.runs.store import RunStore


def show(
    client: WebClient,
    create_client: WebClient,
    store: RunStore,
    run: RunState,
    tracker: Tracker | None,
    deliver: Callable[[Callable[[], None]], object] | None = None,
) -> None:
    """Post the card once (its ts saved with the run at once; a retry adopts a card an earlier try
    posted but never recorded, bot/slack/card_marker.py), else update it. `deliver` wraps only the talking to
    Slack (through an outage, bot/slack/delivery.py): a card that cannot be drawn fails as it did."""
    card = triage_card_now(store.conn, run, tracker)
    if card is None:
        return
    blocks, fallback = triage_blocks(card), fallback_text(card)
    channel = run.origin.channel or ""

    def edit(where: str, ts: str) -> None:
        client.chat_update(channel=where, ts=ts, text=fallback, blocks=blocks)

    def post() -> tuple[str, str]:
        reply = create_client.chat_postMessage(
            channel=channel,
            text=fallback,
            blocks=blocks,
            unfurl_links=False,
            unfurl_media=False,
            metadata=card_marker.marker(run.id),
        )
        return str(reply["channel"]), str(reply["ts"])

    def send() -> None:
        triage_card_once.post_once(
            store,
            run,
            channel,
            find=lambda since: card_marker.find(client, channel, run.id, since),
            edit=edit,
            post=post,
        )

    (deliver or (lambda talk: talk()))(send)


def blocks_for(
    run: RunState, tracker: Tracker | None, current: dict[str, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The whole card as it stands; `current`: the pending calls' arguments as chosen so far (call id -> arguments)."""
    card = triage_card_of(run, tracker, current)
    return triage_blocks(card) if card is not None else []
