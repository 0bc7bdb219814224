"""The day's spend in Redis (issue 38): a model call's worst case is reserved against the caps before it is
made and settled to its actual cost after, so runs on any number of workers cannot overshoot a cap.

One hash per UTC day (`atlas:spend:2026-12-02`) holds micro-dollars per field: `install` (every call),
`repo:OWNER/REPO` and `channel:slack:C123` (a run asked in that channel). The reservation is one Lua script:
it checks every cap the call is held to and, only if all have room for the worst case, counts it in every
field, so two calls can never both take the last room. A worker that dies between the two steps leaves its
reservation counted (never too little). The hash expires a few days after its day.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis

from atlas.connection import text
from atlas.lua import run_script
from workers.errors import SpendCapReached

MICRO = 1_000_000
DAY = 86400
KEEP_SECONDS = 3 * DAY  # today's and the two days before stay readable (the console's page)
INSTALL = "install"

# KEYS[1]: the day's hash. ARGV[1]: the worst case (micro-dollars); ARGV[2]: the hash's TTL; ARGV[3]: how many
# caps, then a field and its limit for each; then the fields the call counts in, `install` first. Returns {0} when
# reserved, else {n} for the n-th cap that has no room for it. The TTL is set when `install` held nothing before
# (always so for a new hash): an EXPIRE fewer on every other call (issue 40).
RESERVE = """
local amount = tonumber(ARGV[1])
local caps = tonumber(ARGV[3])
for i = 0, caps - 1 do
  local spent = tonumber(redis.call('HGET', KEYS[1], ARGV[4 + 2 * i]) or '0')
  if spent + amount > tonumber(ARGV[5 + 2 * i]) then return {i + 1} end
end
local first = 4 + 2 * caps
for i = first, #ARGV do
  if redis.call('HINCRBY', KEYS[1], ARGV[i], amount) == amount and i == first then
    redis.call('EXPIRE', KEYS[1], ARGV[2])
  end
end
return {0}
"""


def day_of(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(now))


def day_key(day: str) -> str:
    return f"atlas:spend:{day}"


def next_midnight(now: float) -> float:
    """When today's caps reset: the next 00:00 UTC."""
    return (now // DAY + 1) * DAY


def channel_field(channel: str) -> str:
    return f"channel:{channel}"


def repo_field(repo: str) -> str:
    return f"repo:{repo}"


@dataclass(frozen=True)
class Scope:
    """What a model call's cost counts for, and the caps that hold it (None: no cap)."""

    repo: str
    channel: str | None = None  # `slack:C123` (atlas/channel_plan.py `spend_channel`)
    install_cap: float | None = None  # ATLAS_DAILY_COST_LIMIT
    channel_cap: float | None = None  # atlas.toml's daily_cost_limit of the channel

    def fields(self) -> tuple[str, ...]:
        own = (channel_field(self.channel),) if self.channel else ()
        return (INSTALL, repo_field(self.repo), *own)

    def caps(self) -> list[tuple[str, str, float]]:
        """(which, field, limit) for each cap that holds: the install's, then the channel's."""
        found = [("install", INSTALL, self.install_cap)]
        if self.channel:
            found.append(("channel", channel_field(self.channel), self.channel_cap))
        return [(which, field, cap) for which, field, cap in found if cap is not None]


@dataclass(frozen=True)
class Hold:
    """A reservation: the day and fields it was counted in, and how much."""

    day: str
    fields: tuple[str, ...]
    micro: int


class Ledger:
    """Reserve, settle and read the day's spend."""

    def __init__(self, conn: redis.Redis, clock: Callable[[], float] = time.time) -> None:
        self.conn, self.clock = conn, clock

    def reserve(self, scope: Scope, dollars: float) -> Hold:
        """Count `dollars` (the call's worst case) in the day's spend, or raise SpendCapReached when a cap has
        no room for it; nothing is counted then."""
        now = self.clock()
        day, micro, caps = day_of(now), math.ceil(dollars * MICRO), scope.caps()
        args: list[str | int] = [micro, KEEP_SECONDS, len(caps)]
        for _, field, cap in caps:
            args += [field, math.floor(cap * MICRO)]
        fields = scope.fields()
        [refused] = run_script(self.conn, RESERVE, [day_key(day)], [*args, *fields])
        if int(refused):
            which, _, cap = caps[int(refused) - 1]
            raise SpendCapReached(which, cap, next_midnight(now))
        return Hold(day, fields, micro)

    def settle(self, hold: Hold, dollars: float) -> None:
        """Replace the reservation by what the call cost (in the reservation's day, even past midnight)."""
        delta = round(dollars * MICRO) - hold.micro
        if delta == 0:
            return
        pipe = self.conn.pipeline(transaction=False)  # each field is its own count: no MULTI needed
        for field in hold.fields:
            pipe.hincrby(day_key(hold.day), field, delta)  # the hash's TTL was set by a reservation, in its day
        pipe.execute()

    def day(self, day: str | None = None) -> dict[str, float]:
        """A day's spend in dollars by field (today's by default)."""
        raw = self.conn.hgetall(day_key(day or day_of(self.clock())))
        return {text(k): int(text(v)) / MICRO for k, v in raw.items()}
