"""Help threads' state in Redis: which threads are help threads (and whose), which a maintainer took
over, which were handed off, how many unprompted runs each channel and each person in it started in the
last hour, and whether a person was told this hour that a limit held their message back.

Every decision is one Lua script, so two deliveries of a post (Slack's retries, Discord's replays
after a RESUME) or a flood of posts decide atomically: a thread is opened once, a channel's count
never passes its limit, a hand-off is claimed once per thread. All keys carry TTLs.

A thread is named by a string its platform builds (`slack_thread`, `discord_thread`); a run finds
its own with `thread_of`.
"""

from __future__ import annotations

import time
from typing import Literal, cast

import redis

from atlas.connection import text
from atlas.help_settings import DEFAULT_PERSON_PER_HOUR
from atlas.lua import run_script
from workers.runs.state import RunState

THREAD_TTL_SECONDS = 30 * 24 * 3600  # as long as the thread's turns are kept (workers/runs/conversations.py)
WINDOW_SECONDS = 3600  # the rate limit's window: at most ATLAS_HELP_RATE runs per channel in any hour
ACTIVE_SECONDS = 15 * 60  # a run in flight longer than this is not waited for (a lost worker's)

OpenOutcome = Literal["new", "known", "limited", "held_person", "held_channel"]
FollowOutcome = Literal["none", "other", "stepped_back", "limited", "held_person", "held_channel", "follow", "joined"]
HELD: frozenset[str] = frozenset({"limited", "held_person", "held_channel"})  # a limit held the message back

# The channel's and the person's last hour of admitted messages, sorted sets scored by time: a message is admitted
# when its author had fewer than `person_limit` and the channel fewer than `limit` in the hour before it; a
# redelivery of an admitted one is admitted again, not counted twice. Held back, the first time in an hour for
# that person in that channel says which limit ('held_person', 'held_channel': a note is due), later ones
# 'limited' (no second note).
_ADMIT = """
local function admit(rate, person, noted, member, limit, person_limit, window, now)
  if redis.call('ZSCORE', rate, member) then return 'ok' end
  now, window = tonumber(now), tonumber(window)
  redis.call('ZREMRANGEBYSCORE', rate, '-inf', now - window)
  redis.call('ZREMRANGEBYSCORE', person, '-inf', now - window)
  local held = nil
  if redis.call('ZCARD', person) >= tonumber(person_limit) then held = 'held_person'
  elseif redis.call('ZCARD', rate) >= tonumber(limit) then held = 'held_channel' end
  if held then
    if redis.call('SET', noted, member, 'NX', 'EX', window) then return held end
    return 'limited'
  end
  redis.call('ZADD', rate, now, member)
  redis.call('EXPIRE', rate, window)
  redis.call('ZADD', person, now, member)
  redis.call('EXPIRE', person, window)
  return 'ok'
end
"""

# KEYS: record, rate, person's rate, person's note. ARGV: asker, channel, post id, limit, window, record TTL, run id,
# now, person limit.
_OPEN = (
    _ADMIT
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 'known' end
local admitted = admit(KEYS[2], KEYS[3], KEYS[4], ARGV[3], ARGV[4], ARGV[9], ARGV[5], ARGV[8])
if admitted ~= 'ok' then return admitted end
redis.call('HSET', KEYS[1], 'asker', ARGV[1], 'channel', ARGV[2], 'post', ARGV[3], 'active', ARGV[7], 'at', ARGV[8])
redis.call('EXPIRE', KEYS[1], ARGV[6])
return 'new'
"""
)

# A reply in a thread. KEYS: record, rate, waiting list, person's rate, person's note. ARGV: user, limit, window,
# run id, now, the message (JSON, for the waiting list), active seconds, record TTL, the message's id, person limit.
_FOLLOW = (
    _ADMIT
    + """
local asker = redis.call('HGET', KEYS[1], 'asker')
if not asker then return 'none' end
if asker ~= ARGV[1] then return 'other' end
if redis.call('HEXISTS', KEYS[1], 'stepped_back') == 1 then return 'stepped_back' end
local admitted = admit(KEYS[2], KEYS[4], KEYS[5], ARGV[9], ARGV[2], ARGV[10], ARGV[3], ARGV[5])
if admitted ~= 'ok' then return admitted end
local active = redis.call('HGET', KEYS[1], 'active')
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '0')
if active and active ~= ARGV[4] and tonumber(ARGV[5]) - at < tonumber(ARGV[7]) then
  if not redis.call('LPOS', KEYS[3], ARGV[6]) then redis.call('RPUSH', KEYS[3], ARGV[6]) end  -- a redelivery waits once
  redis.call('EXPIRE', KEYS[3], ARGV[8])
  return 'joined'
end
redis.call('HSET', KEYS[1], 'active', ARGV[4], 'at', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[8])
return 'follow'
"""
)

# The run in flight ended. KEYS: record, waiting list. ARGV: its run id, the next run's id, now.
# Returns the messages that waited for it (the next run's, now in flight), or nothing.
_FINISHED = """
if redis.call('HGET', KEYS[1], 'active') ~= ARGV[1] then return {} end
local waiting = redis.call('LRANGE', KEYS[2], 0, -1)
redis.call('DEL', KEYS[2])
if #waiting == 0 then
  redis.call('HDEL', KEYS[1], 'active', 'at')
else
  redis.call('HSET', KEYS[1], 'active', ARGV[2], 'at', ARGV[3])
end
return waiting
"""

_STEP_BACK = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'stepped_back', ARGV[1])
return 1
"""

# KEYS: the thread's hand-off marker. ARGV: run id, TTL. 1 when this run may hand off (first, or again).
_HANDOFF = """
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return 1
end
if holder == ARGV[1] then return 1 end
return 0
"""


def slack_thread(team: str | None, channel: str, thread_ts: str) -> str:
    return f"slack:{team or '-'}:{channel}:{thread_ts}"


def discord_thread(guild: str | None, thread_id: str) -> str:
    """A Discord thread: a forum post's, or the one started from a message (both have its id)."""
    return f"discord:{guild or '-'}:{thread_id}"


def thread_of(run: RunState) -> str:
    """The help thread a run speaks in."""
    origin = run.origin
    where = origin.thread_ts or origin.message_ts or ""
    if origin.kind == "discord":
        return discord_thread(origin.team, where)
    return slack_thread(origin.team, origin.channel or "", where)


def _record(thread: str) -> str:
    return f"atlas:help:thread:{thread}"


def _waiting(thread: str) -> str:
    return f"atlas:help:waiting:{thread}"


def _rate(channel: str) -> str:
    return f"atlas:help:rate:{channel}"


def _person(channel: str, user: str) -> list[str]:
    """A person's rate in a channel, and the mark that they were told a limit held them back this hour."""
    return [f"atlas:help:rate:{channel}:by:{user}", f"atlas:help:held:{channel}:{user}"]


def open_thread(
    conn: redis.Redis,
    thread: str,
    *,
    asker: str,
    channel: str,
    post: str,
    run_id: str,
    limit: int,
    person_limit: int = DEFAULT_PERSON_PER_HOUR,
    now: float | None = None,
) -> OpenOutcome:
    """A new top-level post: "new" (its thread is a help thread now, its run may start), "known" (a
    redelivery: the message's claim decides), or held back by a limit: "held_person" (its author's hourly
    limit in the channel) or "held_channel" (the channel's), the first time this hour for that person (say
    so, once), then "limited" (no second note)."""
    now = time.time() if now is None else now
    reply = run_script(
        conn,
        _OPEN,
        [_record(thread), _rate(channel), *_person(channel, asker)],
        [asker, channel, post, limit, WINDOW_SECONDS, THREAD_TTL_SECONDS, run_id, repr(now), person_limit],
    )
    return cast(OpenOutcome, text(reply))


def follow(
    conn: redis.Redis,
    thread: str,
    *,
    user: str,
    channel: str,
    message: str,
    message_json: str,
    run_id: str,
    limit: int,
    person_limit: int = DEFAULT_PERSON_PER_HOUR,
    now: float | None = None,
) -> FollowOutcome:
    """A reply in a thread: "none" (not a help thread), "other" (not the asker), "stepped_back" (a
    maintainer took it), held back by a limit (as `open_thread` says), "follow" (start its run), or "joined"
    (a run is in flight: the message waits for it and the next run answers it with that run's answer as context)."""
    now = time.time() if now is None else now
    reply = run_script(
        conn,
        _FOLLOW,
        [_record(thread), _rate(channel), _waiting(thread), *_person(channel, user)],
        [
            user,
            limit,
            WINDOW_SECONDS,
            run_id,
            repr(now),
            message_json,
            ACTIVE_SECONDS,
            THREAD_TTL_SECONDS,
            message,
            person_limit,
        ],
    )
    return cast(FollowOutcome, text(reply))


def finished(conn: redis.Redis, thread: str, run_id: str, next_run_id: str, now: float | None = None) -> list[str]:
    """Run `run_id` ended: the messages that waited for it (JSON), now `next_run_id`'s, or []."""
    now = time.time() if now is None else now
    reply = run_script(conn, _FINISHED, [_record(thread), _waiting(thread)], [run_id, next_run_id, repr(now)])
    return [text(item) for item in reply]


def step_back(conn: redis.Redis, thread: str, maintainer: str) -> bool:
    """A maintainer replied: Atlas answers in this thread only when mentioned. False: not a help thread."""
    return bool(run_script(conn, _STEP_BACK, [_record(thread)], [maintainer]))


def stepped_back(conn: redis.Redis, thread: str) -> bool:
    return bool(conn.hexists(_record(thread), "stepped_back"))


def asker(conn: redis.Redis, thread: str) -> str | None:
    """Who opened the help thread; None when it is not one."""
    raw = conn.hget(_record(thread), "asker")
    return text(raw) if raw is not None else None


def channel_of(conn: redis.Redis, thread: str) -> str | None:
    """The help channel a help thread belongs to (whose hourly limit its replies count against)."""
    raw = conn.hget(_record(thread), "channel")
    return text(raw) if raw is not None else None


def claim_handoff(conn: redis.Redis, thread: str, run_id: str) -> bool:
    """True for the one run that hands this thread off (and for that run's retried jobs)."""
    return bool(run_script(conn, _HANDOFF, [f"atlas:help:handoff:{thread}"], [run_id, THREAD_TTL_SECONDS]))
