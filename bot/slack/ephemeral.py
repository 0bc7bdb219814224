"""Ephemeral notes to the person who clicked a button: only they see them. `tell` renders the note's value
(bot/slack/views/ephemeral.py) and posts it."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackClientError

from bot.slack.deps import Deps
from bot.slack.views.ephemeral import ephemeral_text
from workers.messages.ephemeral import Ephemeral

log = logging.getLogger("atlas.bot.slack.ephemeral")


def tell(deps: Deps, body: dict[str, Any], user: str, note: Ephemeral) -> None:
    """Tell the clicker `note`, rendered for Slack."""
    tell_clicker(deps, body, user, ephemeral_text(note))


def tell_clicker(deps: Deps, body: dict[str, Any], user: str, text: str) -> None:
    """Post `text` to the clicker in the card's channel (and thread); a Slack failure is only logged."""
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    if not channel or not user:
        return
    thread_ts = (body.get("container") or {}).get("thread_ts") or (body.get("message") or {}).get("thread_ts")
    try:
        deps.client.chat_postEphemeral(channel=channel, user=user, text=text, thread_ts=thread_ts)
    except SlackClientError as exc:
        log.warning("could not post an ephemeral note: %s", type(exc).__name__)
