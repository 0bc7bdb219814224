"""Where a click comes from, checked against where its card lives: an approval is decided only there.

A pending id is opaque but not secret-proof: it can be read off a card, and any signed click of any
platform carries whatever id its button holds. So the decision script (workers/approvals/decisions.py)
compares the click's place with the approval's record before anything else: the platform and the
workspace or guild the run came from (recorded when the step is opened), the channel the card was
posted in (recorded before it is posted) and, once recorded, the card's message. A click from anywhere
else changes nothing and learns nothing (`Misplaced`, told as "no such approval here").
"""

from __future__ import annotations

from dataclasses import dataclass

from workers.runs.state import Platform


@dataclass(frozen=True)
class Place:
    """A click's origin as its platform's signed payload states it."""

    platform: Platform
    team: str  # the Slack workspace or the Discord guild ('' in a DM)
    channel: str
    message: str  # the clicked card's message (Slack ts, Discord message id); '' when the payload has none

    def args(self) -> list[str]:
        return [self.platform, self.team, self.channel, self.message]


# The check, as a Lua fragment over `f` (the approval's fields) and ARGV[base + 1..4] (Place.args; an
# empty platform: a trusted caller, no click, no check). Fields recorded empty are not compared, except
# the channel: with no card posted there is nothing to click. Before the card's message is recorded
# (posted a moment ago, or by a worker killed before recording it) a click from its channel counts,
# and the decision adopts the clicked message as the card (`LUA_ADOPT`), so a retried job does not
# post a second one; once recorded, only that message counts, and a copy a killed worker left
# behind is dead.
LUA_MISPLACED = """local function misplaced(f, base)
  local platform, team, channel, message = ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4]
  if platform == '' then return false end
  if (f['platform'] or '') ~= '' and f['platform'] ~= platform then return true end
  if (f['team'] or '') ~= '' and f['team'] ~= team then return true end
  if (f['channel'] or '') == '' or f['channel'] ~= channel then return true end
  local card = f['card_ts'] or ''
  return card ~= '' and message ~= card
end
local function adopt(key, f, base)
  local message = ARGV[base + 4]
  if ARGV[base + 1] ~= '' and message ~= '' and (f['card_ts'] or '') == '' then
    redis.call('HSET', key, 'card_ts', message, 'card_posting', '')
  end
end
"""
