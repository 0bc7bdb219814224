"""Slack's feedback buttons under an answer: one vote per run and user, clicking the same vote again removes it.
The clicker is told what was recorded (an ephemeral note only they see). The votes themselves are kept by
workers/console_data/votes.py, which Discord's buttons use too.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import redis
from slack_bolt import Ack, App

from bot.slack.deps import Deps
from bot.slack.ephemeral import tell
from bot.slack.views.answer import FEEDBACK_ACTION, FEEDBACK_BUTTON_ACTIONS
from workers.console_data.votes import toggle
from workers.messages.ephemeral import Unrecorded, VoteSaved

log = logging.getLogger("atlas.bot.slack.feedback")

_VALUE = re.compile(r"^([0-9a-f]{8,64}):(up|down)$")


def on_feedback(deps: Deps) -> Callable[..., None]:
    def handle_feedback(ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        ack()
        match = _VALUE.match(str(action.get("value") or ""))
        user = (body.get("user") or {}).get("id")
        if not match or not user:
            return
        try:
            now = toggle(deps.redis, match.group(1), user, match.group(2))  # type: ignore[arg-type]
        except redis.RedisError as exc:
            log.warning("feedback not stored: %s", type(exc).__name__)
            tell(deps, body, user, Unrecorded())
            return
        tell(deps, body, user, VoteSaved(now))

    return handle_feedback


def register(app: App, deps: Deps) -> None:
    """Slack's feedback buttons, and the two plain buttons shown where Slack refuses those."""
    for action_id in (FEEDBACK_ACTION, *FEEDBACK_BUTTON_ACTIONS):
        app.action(action_id)(on_feedback(deps))
