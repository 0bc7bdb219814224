"""How much proactive work may start: new issues per repository, proposals per MCP client, in any hour.

Every triage run starts through `claim.start`, which calls `admit` for an issue not claimed yet, so the
webhook, the periodic sync and MCP's `propose_action` all count against the same limits; `atlas triage N
--post` (a maintainer asking) does not. One script checks and counts atomically: a sliding hour of the
admitted members of a scope (a sorted set scored by time); a member already admitted is admitted again,
never counted twice (a redelivery). A member refused is kept in the scope's overflow (once), which the
digest (digest.py) names, so nothing held back is silent.
"""

from __future__ import annotations

import time

import redis

from atlas.connection import text
from atlas.lua import run_script

WINDOW_SECONDS = 3600
DIGEST_SECONDS = 600  # at most one digest per scope in this long

# KEYS: the scope's admitted set, its overflow set. ARGV: member, limit, window, now ("": Redis's clock, so refusals are
# ordered as they were counted; a digest's mark relies on that). 1: admitted, 0: held back.
_ADMIT = """
local now, window = tonumber(ARGV[4]), tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
  redis.call('EXPIRE', KEYS[2], window)
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('EXPIRE', KEYS[1], window)
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""


def _admitted(scope: str) -> str:
    return f"atlas:triage:rate:{scope}"


def _overflow(scope: str) -> str:
    return f"atlas:triage:overflow:{scope}"


def admit(conn: redis.Redis, scope: str, member: str, limit: int, now: float | None = None) -> bool:
    """Whether `member` (an issue's claim) may start its work in `scope` now: fewer than `limit` others did in
    the last hour, or it was admitted before. Held back, it is kept in the scope's overflow. Timed by Redis unless
    `now` is given: a time read here before another job's count could land behind the digest that followed it."""
    stamp = "" if now is None else repr(now)
    return bool(run_script(conn, _ADMIT, [_admitted(scope), _overflow(scope)], [member, limit, WINDOW_SECONDS, stamp]))


def held_back(conn: redis.Redis, scope: str, now: float | None = None) -> list[str]:
    """The members held back in the last hour and not yet named by a digest, oldest first."""
    now = time.time() if now is None else now
    since = max(now - WINDOW_SECONDS, float(text(conn.get(_digested(scope)) or b"0") or 0))
    members: list[bytes] = conn.zrangebyscore(_overflow(scope), f"({since!r}", "+inf")  # type: ignore[assignment]  # bytes replies
    return [text(m) for m in members]


def digest_due(conn: redis.Redis, scope: str) -> bool:
    """Whether this call may post the scope's digest now (one per DIGEST_SECONDS, claimed atomically)."""
    return bool(conn.set(f"atlas:triage:digest:{scope}", "1", nx=True, ex=DIGEST_SECONDS))


def digested(conn: redis.Redis, scope: str, last: str, now: float | None = None) -> None:
    """A digest named the members held back up to `last` (its time in the overflow): the next one names what came
    after."""
    score = conn.zscore(_overflow(scope), last)
    conn.set(
        _digested(scope), repr(score if score is not None else (time.time() if now is None else now)), ex=WINDOW_SECONDS
    )


def digest_failed(conn: redis.Redis, scope: str) -> None:
    """The digest did not go out: the next held-back member (or the job's retry) posts it."""
    conn.delete(f"atlas:triage:digest:{scope}")


def _digested(scope: str) -> str:
    return f"atlas:triage:digested:{scope}"
