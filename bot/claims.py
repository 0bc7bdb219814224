"""Claim each Slack message once, across Slack's retries and its twin events.

One message can reach the app several times: Slack retries an event it thinks failed (same
`event_id`), and a DM mentioning the bot arrives as `app_mention` and as `message` (different ids,
same channel and `ts`). A delivery claims both keys atomically:

- `claimed`: this delivery owns the message; it enqueues, then `confirm`s (or `release`s on failure,
  so Slack's next retry can claim it).
- `duplicate`: already enqueued; acknowledge and do nothing.
- `in_flight`: another delivery holds a pending claim. Answer non-2xx so Slack retries later: by
  then the holder has confirmed (duplicate) or died and its short claim expired (claimable).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Literal

import redis

PENDING_TTL_SECONDS = 30  # shorter than Slack's first delayed retry (about a minute)
CONFIRMED_TTL_SECONDS = 24 * 3600  # Slack stops retrying after a few minutes
ENQUEUED = "enqueued"

ClaimOutcome = Literal["claimed", "duplicate", "in_flight"]

_CLAIM = """
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[3] then return 'duplicate' end
end
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then return 'in_flight' end
end
for _, key in ipairs(KEYS) do
  redis.call('SET', key, 'pending:' .. ARGV[1], 'EX', ARGV[2])
end
return 'claimed'
"""

_RELEASE = """
local released = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == 'pending:' .. ARGV[1] then
    redis.call('DEL', key)
    released = released + 1
  end
end
return released
"""


@dataclass(frozen=True)
class Claim:
    """The keys one delivery claims and the token that proves it holds them."""

    keys: tuple[str, ...]
    token: str = field(default_factory=lambda: uuid.uuid4().hex)


def message_claim(team: str | None, channel: str, ts: str, event_id: str | None) -> Claim:
    """The claim for one Slack message: its channel + ts, and the delivering event's id."""
    keys = [f"atlas:claim:msg:{team or '-'}:{channel}:{ts}"]
    if event_id:
        keys.append(f"atlas:claim:event:{event_id}")
    return Claim(tuple(keys))


def claim(conn: redis.Redis, c: Claim) -> ClaimOutcome:
    """Try to own the message. Raises redis.RedisError when Redis is unreachable (nothing claimed)."""
    outcome = conn.eval(_CLAIM, len(c.keys), *c.keys, c.token, PENDING_TTL_SECONDS, ENQUEUED)
    return outcome.decode() if isinstance(outcome, bytes) else outcome


def confirm(conn: redis.Redis, c: Claim) -> None:
    """The message is enqueued: later deliveries are duplicates."""
    pipe = conn.pipeline(transaction=True)
    for key in c.keys:
        pipe.set(key, ENQUEUED, ex=CONFIRMED_TTL_SECONDS)
    pipe.execute()


def release(conn: redis.Redis, c: Claim) -> None:
    """Give the claim back after a failed enqueue, so Slack's retry can take it (best effort)."""
    try:
        conn.eval(_RELEASE, len(c.keys), *c.keys, c.token)
    except redis.RedisError:
        pass  # it expires after PENDING_TTL_SECONDS anyway
