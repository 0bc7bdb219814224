"""A triage card posted exactly once on Slack, though chat.postMessage has no idempotency key.

The card carries a stable marker in its message metadata (`event_type` atlas_triage_card, the run id in
`event_payload`), and the run records the intent (when it is about to post) before posting. A job
retried after a worker died between Slack taking the card and the run saving its ts finds the intent,
reads the channel's history since then (include_all_metadata) and adopts the card it finds instead of
posting a second. If the history cannot be read (the app lacks channels:history or groups:history), the
retry posts again, as approval cards do: the place check leaves only the recorded copy's buttons live.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.delivery import transient

log = logging.getLogger("atlas.bot.slack.card_marker")

EVENT_TYPE = "atlas_triage_card"
LOOK_BACK_SECONDS = 60.0  # clocks of the worker and of Slack differ a little
MAX_PAGES = 5  # 1,000 messages of a busy triage channel since the intent


def marker(run_id: str) -> dict[str, Any]:
    """The metadata chat.postMessage stores with the card."""
    return {"event_type": EVENT_TYPE, "event_payload": {"run_id": run_id}}


def find(client: WebClient, channel: str, run_id: str, since: float) -> str | None:
    """The ts of the card a run posted to `channel` after `since` (epoch seconds), None if there is none
    or the history cannot be read (a refusal such as missing_scope); a temporary failure raises."""
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        try:
            page = client.conversations_history(channel=channel, oldest=f"{max(0.0, since - LOOK_BACK_SECONDS):.6f}",
                                                include_all_metadata=True, limit=200, cursor=cursor)
        except SlackApiError as exc:
            if transient(exc):
                raise  # Slack may still have the card: the job is retried, never posts a second on a blip
            log.warning("run %s: the triage channel's history is unreadable (%s): the card may be posted twice",
                        run_id, exc.response.get("error"))
            return None
        for message in page.get("messages") or []:
            meta = message.get("metadata") or {}
            if meta.get("event_type") == EVENT_TYPE and (meta.get("event_payload") or {}).get("run_id") == run_id:
                return str(message["ts"])
        cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
        if not page.get("has_more") or not cursor:
            return None
    return None
