"""The triage card on Slack: one message per issue in ATLAS_TRIAGE_CHANNEL, posted once, updated in place.

What it shows is rendered from its value (bot/slack/views/triage.py from workers/messages/triage.py). The card's
channel is recorded on each approval before it is posted and its ts after (workers/approvals/triage_card_once.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient

from bot.slack import card_marker
from bot.slack.views.triage import fallback_text, triage_blocks
from tools.tracker import Tracker
from workers.approvals import triage_card_once
from workers.messages.triage import triage_card_now, triage_card_of
from workers.runs.state import RunState
from workers.runs.store import RunStore


@dataclass(frozen=True)
class DrawnCard:
    """The card rendered: what `send` posts or updates."""

    blocks: list[dict[str, Any]]
    fallback: str


def draw(store: RunStore, run: RunState, tracker: Tracker | None) -> DrawnCard | None:
    """The card as it stands, rendered (None: the run has no card to show). A card that cannot be drawn fails here,
    before any talking to Slack, so an outage's retries never wrap it."""
    card = triage_card_now(store.conn, run, tracker)
    return DrawnCard(triage_blocks(card), fallback_text(card)) if card is not None else None


def send(client: WebClient, create_client: WebClient, store: RunStore, run: RunState, drawn: DrawnCard) -> None:
    """Post the card once (its ts saved with the run at once; a retry adopts a card an earlier try
    posted but never recorded, bot/slack/card_marker.py), else update it."""
    channel = run.origin.channel or ""

    def edit(where: str, ts: str) -> None:
        client.chat_update(channel=where, ts=ts, text=drawn.fallback, blocks=drawn.blocks)

    def post() -> tuple[str, str]:
        reply = create_client.chat_postMessage(
            channel=channel,
            text=drawn.fallback,
            blocks=drawn.blocks,
            unfurl_links=False,
            unfurl_media=False,
            metadata=card_marker.marker(run.id),
        )
        return str(reply["channel"]), str(reply["ts"])

    triage_card_once.post_once(
        store, run, channel, find=lambda since: card_marker.find(client, channel, run.id, since), edit=edit, post=post
    )


def show(client: WebClient, create_client: WebClient, store: RunStore, run: RunState, tracker: Tracker | None) -> None:
    """Draw the card and send it, with no outage's retries (the reporter's `triage_card` has them)."""
    drawn = draw(store, run, tracker)
    if drawn is not None:
        send(client, create_client, store, run, drawn)


def blocks_for(
    run: RunState, tracker: Tracker | None, current: dict[str, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The whole card as it stands; `current`: the pending calls' arguments as chosen so far (call id -> arguments)."""
    card = triage_card_of(run, tracker, current)
    return triage_blocks(card) if card is not None else []
