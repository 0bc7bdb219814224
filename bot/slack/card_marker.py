"""A card posted exactly once on Slack, though chat.postMessage has no idempotency key.

The card carries a stable marker in its message metadata: a triage card `event_type` atlas_triage_card
with the run id in `event_payload`, an approval card atlas_approval_card with the pending id, and a thread
note posted once ("Filed #N", a close or release notice) atlas_thread_note with its key. The intent
(when it is about to post) is recorded before posting (workers/runs/post_once.py). A job retried after a
worker died between Slack taking the card and the record saving its ts finds the intent, reads the
channel's history since then (conversations.history; conversations.replies for a card in a thread, both
with include_all_metadata) and adopts the card it finds instead of posting a second. If the history cannot
be read (the app lacks channels:history or groups:history), the retry posts again: the place check leaves
only the recorded copy's buttons live.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.delivery import transient

log = logging.getLogger("atlas.bot.slack.card_marker")

EVENT_TYPE = "atlas_triage_card"
APPROVAL_EVENT_TYPE = "atlas_approval_card"
NOTE_EVENT_TYPE = "atlas_thread_note"
LOOK_BACK_SECONDS = 60.0  # clocks of the worker and of Slack differ a little
MAX_PAGES = 5  # 1,000 messages of a busy triage channel since the intent


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


def find_marked(client: WebClient, channel: str, wanted: dict[str, Any], since: float, thread_ts: str | None = None) -> str | None:
    """The ts of the message carrying the metadata `wanted` posted to `channel` (in the thread `thread_ts`,
    if given) after `since`; None if there is none or the history cannot be read; a temporary failure raises."""
    cursor: str | None = None
    oldest = f"{max(0.0, since - LOOK_BACK_SECONDS):.6f}"
    for _ in range(MAX_PAGES):
        try:
            if thread_ts:
                page = client.conversations_replies(channel=channel, ts=thread_ts, oldest=oldest, include_all_metadata=True,
                                                    limit=200, cursor=cursor)
            else:
                page = client.conversations_history(channel=channel, oldest=oldest, include_all_metadata=True, limit=200, cursor=cursor)
        except SlackApiError as exc:
            if transient(exc):
                raise  # Slack may still have the card: the job is retried, never posts a second on a blip
            log.warning("%s %s: the channel's history is unreadable (%s): the card may be posted twice", wanted["event_type"],
                        wanted["event_payload"], exc.response.get("error"))
            return None
        for message in page.get("messages") or []:
            meta = message.get("metadata") or {}
            payload = meta.get("event_payload") or {}
            if meta.get("event_type") == wanted["event_type"] and all(payload.get(k) == v for k, v in wanted["event_payload"].items()):
                return str(message["ts"])
        cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
        if not page.get("has_more") or not cursor:
            return None
    return None
