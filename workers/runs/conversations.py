"""A Slack thread's earlier questions and answers, kept in Redis by Atlas itself.

Why not `conversations.replies`: Slack rate-limits it hard (one call a minute for apps distributed
outside the Marketplace). A worker appends a turn when a run's answer is final; the bot reads the
turns when a follow-up mention arrives and passes them to the new run as its history.
"""

from __future__ import annotations

import redis

from atlas.lua import run_script
from workers.runs.state import Turn

MAX_TURNS = 20  # older turns fall off; the context budget trims further
TURNS_TTL_SECONDS = 30 * 24 * 3600


def thread_key(team: str | None, channel: str, thread_ts: str) -> str:
    return f"atlas:thread:{team or '-'}:{channel}:{thread_ts}"


# Append once per run: a re-delivered answer (a retried job) must not repeat the turn. Trimmed only
# once the thread has more than MAX_TURNS (RPUSH says how many it has): most threads never do.
_APPEND_ONCE = """
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[2]) then
  if redis.call('RPUSH', KEYS[1], ARGV[1]) > tonumber(ARGV[3]) then
    redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]), -1)
  end
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


def append(conn: redis.Redis, team: str | None, channel: str, thread_ts: str, run_id: str, turn: Turn) -> bool:
    """Record run `run_id`'s question and answer at the end of the thread's turns; False if already there."""
    keys = [thread_key(team, channel, thread_ts), f"atlas:thread-turn:{run_id}"]
    return bool(run_script(conn, _APPEND_ONCE, keys, [turn.model_dump_json(), TURNS_TTL_SECONDS, MAX_TURNS]))


def turns(conn: redis.Redis, team: str | None, channel: str, thread_ts: str) -> list[Turn]:
    """The thread's turns, oldest first; empty for a new thread."""
    raw = conn.lrange(thread_key(team, channel, thread_ts), 0, -1)
    return [Turn.model_validate_json(item) for item in raw]
