"""The votes on a run's answer: one per run and user, clicking the same vote again removes it. Slack's and
Discord's feedback buttons both record here, and the console reads them.

Stored in Redis as a hash per run (user -> "up" | "down"), toggled atomically by a short script.
"""

from __future__ import annotations

from typing import Literal, cast

import redis

from atlas.connection import text
from atlas.lua import run_script
from workers.console_data import index_filing, run_index

FEEDBACK_TTL_SECONDS = 180 * 24 * 3600
Vote = Literal["up", "down"]

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
    return {
        text(k): cast(Vote, text(v)) for k, v in conn.hgetall(feedback_key(run_id)).items()
    }  # only votes are stored
