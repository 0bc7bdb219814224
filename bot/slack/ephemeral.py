"""Ephemeral notes to the person who clicked a button: only they see them. `tell` renders the note's value
(bot/slack/views/ephemeral.py, or the filing and solved-mark views for what those clicks did) and posts it."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackClientError

from bot.slack.deps import Deps
from bot.slack.views.ephemeral import ephemeral_text
from bot.slack.views.filing import filing_click_text
from bot.slack.views.knowledge import solved_click_text
from workers.messages.ephemeral import Ephemeral
from workers.messages.filing import FilingClick
from workers.messages.knowledge import SolvedClick

log = logging.getLogger("atlas.bot.slack.ephemeral")

Note = Ephemeral | FilingClick | SolvedClick


def tell(deps: Deps, body: dict[str, Any], user: str, note: Note) -> None:
    """Tell the clicker `note`, rendered for Slack."""
    tell_clicker(deps, body, user, _rendered(note))


def _rendered(note: Note) -> str:
    if isinstance(note, FilingClick):
        return filing_click_text(note)
    if isinstance(note, SolvedClick):
        return solved_click_text(note)
    return ephemeral_text(note)


def tell_clicker(deps: Deps, body: dict[str, Any], user: str, text: str) -> None:
    """Post `text` (a view's rendering: tests/house/test_platform_wording.py) to the clicker in the card's channel
    (and thread); a Slack failure is only logged."""
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    if not channel or not user:
        return
    thread_ts = (body.get("container") or {}).get("thread_ts") or (body.get("message") or {}).get("thread_ts")
    try:
        deps.client.chat_postEphemeral(channel=channel, user=user, text=text, thread_ts=thread_ts)
    except SlackClientError as exc:
        log.warning("could not post an ephemeral note: %s", type(exc).__name__)
