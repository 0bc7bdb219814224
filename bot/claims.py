"""Claim each Slack message once, across Slack's retries and its twin events.

One message can reach the app several times: Slack retries an event it thinks failed (same
`event_id`), and a DM mentioning the bot arrives as `app_mention` and as `message` (different ids,
same channel and `ts`). A delivery claims both keys atomically:

- `claimed`: this delivery owns the message; it records and enqueues the run and confirms the claim
  in one transaction (or `release`s it on failure, so Slack's next retry can claim it).
- `duplicate`: already enqueued; acknowledge and do nothing.
- `recorded`: the run exists although the claim was never confirmed (the confirming reply was lost):
  it is queued; confirm and acknowledge.
- `in_flight`: another delivery holds a pending claim. Answer non-2xx so Slack retries later: by
  then the holder has confirmed (duplicate) or died and its short claim expired (claimable).

The claim also returns the thread's earlier turns, so a mention costs two Redis round trips in all:
this script, then the transaction that records, enqueues and confirms.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, cast

import redis

from atlas.lua import run_script

PENDING_TTL_SECONDS = 30  # shorter than Slack's first delayed retry (about a minute)
CONFIRMED_TTL_SECONDS = 24 * 3600  # Slack stops retrying after a few minutes
ENQUEUED = "enqueued"

ClaimOutcome = Literal["claimed", "duplicate", "recorded", "in_flight"]

# KEYS: the claim keys, then the run key, then the thread's turns key. ARGV: token, pending TTL,
# the confirmed marker, the number of claim keys. One GET per claim key tells a duplicate (confirmed) from one
# in flight (any other value).
_CLAIM = """
local n = tonumber(ARGV[4])
local held = false
for i = 1, n do
  local value = redis.call('GET', KEYS[i])
  if value == ARGV[3] then return {'duplicate'} end
  held = held or value ~= false
end
if held then return {'in_flight'} end
for i = 1, n do
  redis.call('SET', KEYS[i], 'pending:' .. ARGV[1], 'EX', ARGV[2])
end
if redis.call('EXISTS', KEYS[n + 1]) == 1 then return {'recorded'} end
local turns = redis.call('LRANGE', KEYS[n + 2], 0, -1)
table.insert(turns, 1, 'claimed')
return turns
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

    @cached_property
    def token(self) -> str:
        """Drawn when a two-step claim first needs it: the Slack intake's one script never does, and
        drawing it (`os.urandom`) lets go of the GIL on the ack's path."""
        return uuid.uuid4().hex


def message_claim(team: str | None, channel: str, ts: str, event_id: str | None) -> Claim:
    """The claim for one Slack message: its channel + ts, and the delivering event's id."""
    keys = [f"atlas:claim:msg:{team or '-'}:{channel}:{ts}"]
    if event_id:
        keys.append(f"atlas:claim:event:{event_id}")
    return Claim(tuple(keys))


@dataclass(frozen=True)
class Claimed:
    """What the claim found: the outcome and, when claimed, the thread's turns (raw JSON)."""

    outcome: ClaimOutcome
    turns: tuple[bytes, ...] = ()


def claim(conn: redis.Redis, c: Claim, *, run_key: str, thread_key: str) -> Claimed:
    """Try to own the message. Raises redis.RedisError when Redis is unreachable (nothing claimed)."""
    reply = run_script(
        conn, _CLAIM, [*c.keys, run_key, thread_key], [c.token, PENDING_TTL_SECONDS, ENQUEUED, len(c.keys)]
    )
    head = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
    return Claimed(cast(ClaimOutcome, head), tuple(reply[1:]))  # the script returns one of the outcomes


def confirm(pipe: redis.client.Pipeline | redis.Redis, c: Claim) -> None:
    """The message is enqueued: later deliveries are duplicates. Queued on `pipe` when it is a pipeline."""
    for key in c.keys:
        pipe.set(key, ENQUEUED, ex=CONFIRMED_TTL_SECONDS)


def release(conn: redis.Redis, c: Claim) -> None:
    """Give the claim back after a failed enqueue, so Slack's retry can take it (best effort)."""
    try:
        run_script(conn, _RELEASE, c.keys, [c.token])
    except redis.RedisError:
        pass  # it expires after PENDING_TTL_SECONDS anyway
