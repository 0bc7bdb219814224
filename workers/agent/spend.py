"""The day's spend in Redis (issue 38): a model call's worst case is reserved against the caps before it is
made and settled to its actual cost after, so runs on any number of workers cannot overshoot a cap.

One hash per UTC day (`atlas:spend:2026-12-02`) holds micro-dollars, one field per repository and channel a call
counts for (`call:OWNER/REPO|slack:C123`, `call:OWNER/REPO|` outside a channel), so a call is one HINCRBY to
reserve and one to settle (issue 40: three each before, one per total). The totals are summed when read: the
install's (every call), each repository's (`repo:OWNER/REPO`) and each channel's (`channel:slack:C123`); fields
of the earlier layout (`install`, `repo:...`, `channel:...`, written before the upgrade) count in their own total
as they are. The reservation is one Lua script: it checks every cap the call is held to (summing the day's
fields, only when there is a cap) and, only if all have room for the worst case, counts it, so two calls can
never both take the last room. A worker that dies between the two steps leaves its reservation counted (never
too little). The hash expires a few days after its day.
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
CALL = "call:"

# KEYS[1]: the day's hash. ARGV[1]: the worst case (micro-dollars); ARGV[2]: the hash's TTL; ARGV[3]: the call's
# field; ARGV[4]: how many caps, then for each the total it holds (`install` or `channel:slack:C123`) and its limit.
# Returns {0} when reserved, else {n} for the n-th cap that has no room for it. The TTL is set when the call's field
# held nothing before (always so for a new hash): no EXPIRE on most calls.
RESERVE = """
local amount = tonumber(ARGV[1])
local caps = tonumber(ARGV[4])
if caps > 0 then
  local raw = redis.call('HGETALL', KEYS[1])
  for i = 0, caps - 1 do
    local total, spent = ARGV[5 + 2 * i], 0
    local channel = string.sub(total, 9)
    for j = 1, #raw, 2 do
      local field, value = raw[j], tonumber(raw[j + 1])
      if field == total then spent = spent + value
      elseif string.sub(field, 1, 5) == 'call:' then
        local at = string.find(field, '|', 1, true)
        if total == 'install' or string.sub(field, at + 1) == channel then spent = spent + value end
      end
    end
    if spent + amount > tonumber(ARGV[6 + 2 * i]) then return {i + 1} end
  end
end
if redis.call('HINCRBY', KEYS[1], ARGV[3], amount) == amount then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
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
        """The totals the call counts in, as `Ledger.day` reports them."""
        own = (channel_field(self.channel),) if self.channel else ()
        return (INSTALL, repo_field(self.repo), *own)

    def call_field(self) -> str:
        """The one field the call is counted in: its repository and channel."""
        return f"{CALL}{self.repo}|{self.channel or ''}"

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
    field: str
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
        args: list[str | int] = [micro, KEEP_SECONDS, scope.call_field(), len(caps)]
        for _, field, cap in caps:
            args += [field, math.floor(cap * MICRO)]
        [refused] = run_script(self.conn, RESERVE, [day_key(day)], args)
        if int(refused):
            which, _, cap = caps[int(refused) - 1]
            raise SpendCapReached(which, cap, next_midnight(now))
        return Hold(day, scope.call_field(), micro)

    def settle(self, hold: Hold, dollars: float) -> None:
        """Replace the reservation by what the call cost (in the reservation's day, even past midnight)."""
        delta = round(dollars * MICRO) - hold.micro
        if delta:
            self.conn.hincrby(day_key(hold.day), hold.field, delta)  # its TTL was set by a reservation, in its day

    def day(self, day: str | None = None) -> dict[str, float]:
        """A day's spend in dollars by total (today's by default): `install`, each `repo:...` and `channel:...`."""
        raw = self.conn.hgetall(day_key(day or day_of(self.clock())))
        totals: dict[str, int] = {}
        for key, value in raw.items():
            field, micro = text(key), int(text(value))
            if not field.startswith(CALL):  # the earlier layout: a total already
                totals[field] = totals.get(field, 0) + micro
                continue
            repo, _, channel = field.removeprefix(CALL).partition("|")
            for total in (INSTALL, repo_field(repo), *((channel_field(channel),) if channel else ())):
                totals[total] = totals.get(total, 0) + micro
        return {field: micro / MICRO for field, micro in totals.items()}
