"""A card posted exactly once on Slack, though chat.postMessage has no idempotency key.

The card carries a stable marker in its message metadata: a triage card `event_type` atlas_triage_card
with the run id in `event_payload`, an approval card atlas_approval_card with the pending id, and a thread
note posted once ("Filed #N", a close or release notice) atlas_thread_note with its key. The intent
(when it is about to post) is recorded before posting (workers/runs/post_once.py). A job retried after a
worker died between Slack taking the card and the record saving its ts finds the intent, reads the
channel's history since then (conversations.history; conversations.replies for a card in a thread, both
with include_all_metadata, forward from the intent, in pages of the app's tier: ATLAS_SLACK_TIER) and adopts
the card it finds instead of posting a second. If the history cannot
be read (the app lacks channels:history or groups:history), the retry posts again: the place check leaves
only the recorded copy's buttons live.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.client import AtlasWebClient
from bot.slack.delivery import transient

log = logging.getLogger("atlas.bot.slack.card_marker")

EVENT_TYPE = "atlas_triage_card"
APPROVAL_EVENT_TYPE = "atlas_approval_card"
NOTE_EVENT_TYPE = "atlas_thread_note"
LOOK_BACK_SECONDS = 60.0  # clocks of the worker and of Slack differ a little
FIRST_WINDOW_SECONDS = 120.0  # the first window of history read after the intent: the card is posted right after it
MAX_REQUESTS = 8  # reads of 200 messages (Marketplace or internal apps: 50 a minute)
MAX_LIMITED_REQUESTS = 3  # reads of 15 (a distributed app outside the Marketplace: one a minute, ATLAS_SLACK_TIER)


def marker(run_id: str) -> dict[str, Any]:
    """The metadata chat.postMessage stores with a triage card."""
    return {"event_type": EVENT_TYPE, "event_payload": {"run_id": run_id}}


def approval_marker(pending_id: str) -> dict[str, Any]:
    """The metadata chat.postMessage stores with an approval card."""
    return {"event_type": APPROVAL_EVENT_TYPE, "event_payload": {"pending_id": pending_id}}


def note_marker(key: str) -> dict[str, Any]:
    """The metadata chat.postMessage stores with a note posted once (workers/runs/post_once.py `KeyedSlot`)."""
    return {"event_type": NOTE_EVENT_TYPE, "event_payload": {"key": key}}


def find(client: WebClient, channel: str, run_id: str, since: float) -> str | None:
    """The ts of the triage card a run posted to `channel` after `since` (epoch seconds), None if there is
    none or the history cannot be read (a refusal such as missing_scope); a temporary failure raises."""
    return find_marked(client, channel, marker(run_id), since)


def find_marked(
    client: WebClient,
    channel: str,
    wanted: dict[str, Any],
    since: float,
    thread_ts: str | None = None,
    now: float | None = None,
) -> str | None:
    """The ts of the message carrying the metadata `wanted` posted to `channel` (in the thread `thread_ts`,
    if given) after `since`; None if there is none or the history cannot be read; a temporary failure raises.

    The card was posted just after its intent, so the history is read forward from `since`: a thread's replies
    come oldest first; a channel's history comes newest first, so it is read in windows of time from `since`
    on, each twice the last, newest first within each. Either way the card is on the first page or so
    however busy the channel was since (read back from now, 15-message pages found only the last 75)."""
    page = client.history_page if isinstance(client, AtlasWebClient) else AtlasWebClient.history_page
    # at 15 a page, each read after the first waits out the minute Slack allows
    budget = MAX_REQUESTS if page >= 100 else MAX_LIMITED_REQUESTS
    start, until = max(0.0, since - LOOK_BACK_SECONDS), (time.time() if now is None else now) + LOOK_BACK_SECONDS
    span, cursor = FIRST_WINDOW_SECONDS, None
    for _ in range(budget):
        latest = until if thread_ts else min(until, start + span)
        try:
            if thread_ts:
                got = client.conversations_replies(
                    channel=channel,
                    ts=thread_ts,
                    oldest=f"{start:.6f}",
                    include_all_metadata=True,
                    limit=page,
                    cursor=cursor,
                )
            else:
                got = client.conversations_history(
                    channel=channel,
                    oldest=f"{start:.6f}",
                    latest=f"{latest:.6f}",
                    inclusive=True,
                    include_all_metadata=True,
                    limit=page,
                    cursor=cursor,
                )
        except SlackApiError as exc:
            if transient(exc):
                raise  # Slack may still have the card: the job is retried, never posts a second on a blip
            log.warning(
                "%s %s: the channel's history is unreadable (%s): the card may be posted twice",
                wanted["event_type"],
                wanted["event_payload"],
                exc.response.get("error"),
            )
            return None
        for message in got.get("messages") or []:
            meta = message.get("metadata") or {}
            payload = meta.get("event_payload") or {}
            if meta.get("event_type") == wanted["event_type"] and all(
                payload.get(k) == v for k, v in wanted["event_payload"].items()
            ):
                return str(message["ts"])
        cursor = (got.get("response_metadata") or {}).get("next_cursor") or None
        if got.get("has_more") and cursor:
            continue  # the rest of this window (or thread)
        if thread_ts or latest >= until:
            return None
        start, span, cursor = latest, span * 2, None  # the next window of time, twice as long
    log.warning(
        "%s %s: not found in %d reads of the history since its intent: the card may be posted twice",
        wanted["event_type"],
        wanted["event_payload"],
        budget,
    )
    return None
