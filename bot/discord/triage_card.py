"""The triage card on Discord: one bot message per issue in ATLAS_DISCORD_TRIAGE_CHANNEL, edited in place.

Read off the run as a value (workers/messages/triage.py), rendered by bot/discord/views/triage.py, posted here once
(a retried job finds it again).
"""

from __future__ import annotations

from typing import Any

from bot.discord import card_marker
from bot.discord.rest import DiscordREST
from bot.discord.views.triage import triage_payload
from tools.tracker import Tracker
from workers.approvals import triage_card_once as card_post
from workers.messages.triage import triage_card_now, triage_card_of
from workers.runs.state import RunState
from workers.runs.store import RunStore


def show(rest: DiscordREST, store: RunStore, run: RunState, tracker: Tracker | None) -> None:
    """Post the card once (a retried job gets it back by nonce, or later finds it in the channel:
    bot/discord/card_marker.py), else edit it."""
    card = triage_card_now(store.conn, run, tracker)
    if card is None:
        return
    payload = triage_payload(card)
    channel = run.origin.channel or ""

    def edit(where: str, card_id: str) -> None:
        rest.edit_message(where, card_id, payload)

    def post() -> tuple[str, str]:
        reply = rest.create_message(channel, {**payload, "nonce": card_marker.nonce(run.id), "enforce_nonce": True})
        return channel, str(reply["id"])

    pending = [c.pending_id for c in run.pending]
    card_post.post_once(
        store, run, channel, find=lambda since: card_marker.find(rest, channel, pending, since), edit=edit, post=post
    )


def card_payload(
    run: RunState, tracker: Tracker | None, current: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The whole card as it stands (views/triage.py); `current`: the pending calls' arguments as chosen so far."""
    card = triage_card_of(run, tracker, current)
    assert card is not None  # a triage run's
    return triage_payload(card)
