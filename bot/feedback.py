"""Feedback buttons under an answer: one vote per run and user, clicking the same vote again removes it.
The clicker is told what was recorded (an ephemeral note only they see).

Stored in Redis as a hash per run (user -> "up" | "down"), toggled atomically by a short script.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any, Literal, cast

import redis
from slack_bolt import Ack, App

from atlas.connection import text
from atlas.lua import run_script
from bot.deps import Deps
from bot.slack import wording
from bot.slack.ephemeral import tell_clicker
from bot.slack.render import FEEDBACK_ACTION, FEEDBACK_BUTTON_ACTIONS
from workers.runs import index_filing, run_index

log = logging.getLogger("atlas.bot.feedback")

FEEDBACK_TTL_SECONDS = 180 * 24 * 3600
Vote = Literal["up", "down"]
_VALUE = re.compile(r"^([0-9a-f]{8,64}):(up|down)$")

_TOGGLE = """
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return ''
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return ARGV[2]
"""


def feedback_key(run_id: str) -> str:
    return f"atlas:feedback:{run_id}"


def toggle(conn: redis.Redis, run_id: str, user: str, vote: Vote) -> Vote | None:
    """Set the user's vote on the run, or clear it if it was already that vote; returns the new vote."""
    result = run_script(conn, _TOGGLE, [feedback_key(run_id)], [user, vote, FEEDBACK_TTL_SECONDS])
    value = result.decode() if isinstance(result, bytes) else result
    index_filing.flush(conn)  # a run whose filing is still pending is filed before its vote
    run_index.vote_changed(conn, run_id, feedback_key(run_id))  # the console's feedback filter and figures
    return value or None  # type: ignore[return-value]


def votes(conn: redis.Redis, run_id: str) -> dict[str, Vote]:
    """Every user's current vote on a run."""
    return {text(k): cast(Vote, text(v)) for k, v in conn.hgetall(feedback_key(run_id)).items()}  # only votes are stored


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
            tell_clicker(deps, body, user, wording.EPHEMERAL_UNAVAILABLE)
            return
        tell_clicker(deps, body, user, wording.FEEDBACK_SAVED[now])

    return handle_feedback


def register(app: App, deps: Deps) -> None:
    """Slack's feedback buttons, and the two plain buttons shown where Slack refuses those."""
    for action_id in (FEEDBACK_ACTION, *FEEDBACK_BUTTON_ACTIONS):
        app.action(action_id)(on_feedback(deps))
