"""Deciding a pending call in one round trip: load the approval, authorize the clicker, record the decision.

One script does all three, so a click waits on Redis once. It reads the approval; refuses a clicker
the policy does not grant (workers/approvals/approvers.py `standing`: the configured ids and the
asker opt-in are settled from its arguments, a group or admin rule from the directory answer
cached in Redis); then records the decision if the call is still pending and unexpired. The first
decision wins, the decision and its audit entry are written together, and the click that decides
the step's last open call claims its resume (exactly one caller per step).

When the rule needs a directory answer that is not cached, the script changes nothing and says so
(`Unsettled`): the caller asks the directory (Slack, cached) with `may_decide` and decides again
with the clicker's right settled (`settle`). A missing answer never grants.

The script reaches the step's record by a key it builds from the approval (`atlas:approvals:{run}:{step}`),
which is fine on one Redis or Valkey server (Atlas's only layout: RQ does not support Redis Cluster).
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from atlas.connection import text
from atlas.lua import run_script
from workers.approvals.approvers import Directory, Policy, Standing, may_decide
from workers.approvals.audit import AUDIT_KEY
from workers.approvals.records import (
    LUA_AUDIT,
    LUA_NOW,
    STEP_KEY_PREFIX,
    Approval,
    Decision,
    approval_key,
    from_fields,
    step_complete,
)
from workers.runs.queueing import resume_queued

# KEYS: approval, the cached directory answer (the approval key again when none is needed), audit (last: `audit` writes there).
# ARGV: decision, decider, decider_name, granted, asker_counts ('1' or '0'), lookup ('members',
# 'admin' or ''), the step keys' prefix.
_DECIDE = LUA_NOW + LUA_AUDIT + """
local raw = redis.call('HGETALL', KEYS[1])
if #raw == 0 then return {'missing'} end
local f = {}
for i = 1, #raw, 2 do f[raw[i]] = raw[i + 1] end
local user = ARGV[2]
local allowed = ARGV[4] == '1' or (ARGV[5] == '1' and user ~= '' and f['requester'] == user)
if not allowed and ARGV[6] ~= '' then
  local cached = redis.call('GET', KEYS[2])
  if not cached then return {'unsettled', raw} end
  local answer = cjson.decode(cached)
  if ARGV[6] == 'admin' then
    allowed = answer == true
  else
    for _, id in ipairs(answer) do
      if id == user then allowed = true; break end
    end
  end
end
if not allowed then return {'refused', raw} end
if f['status'] ~= 'pending' or now >= tonumber(f['expires_at']) then return {'stale', raw} end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decider', user, 'decider_name', ARGV[3], 'decided_at', tostring(now))
audit(KEYS[1], 'decision', {'decider', user, 'decision', ARGV[1]})
local step = ARGV[7] .. f['run_id'] .. ':' .. f['step']
local closed = '0'
if redis.call('HINCRBY', step, 'open', -1) <= 0 and redis.call('HSETNX', step, 'resume', tostring(now)) == 1 then closed = '1' end
return {'decided', redis.call('HGETALL', KEYS[1]), closed}
"""


@dataclass(frozen=True)
class Decided:
    """This click decided the call (`approval` as it left it); `step_complete` is True for exactly one caller per step."""

    approval: Approval
    step_complete: bool


@dataclass(frozen=True)
class Stale:
    """The call was already decided or expired (or just expired): nothing changed."""

    approval: Approval


@dataclass(frozen=True)
class Missing:
    """No such pending id (never opened, or its record expired)."""


@dataclass(frozen=True)
class Refused:
    """The clicker may not decide this call: nothing changed."""

    approval: Approval


@dataclass(frozen=True)
class Unsettled:
    """The rule needs a directory answer that is not cached: nothing changed; `settle` asks and decides."""

    approval: Approval


Outcome = Decided | Stale | Missing | Refused | Unsettled


def decide(conn: redis.Redis, pending_id: str, decision: Decision, decider: str, decider_name: str = "",
           standing: Standing | None = None) -> Outcome:
    """Decide `pending_id` for `decider` in one round trip. `standing`: the clicker's right as the policy
    gives it (approvers.standing); None when the caller has authorized `decider` itself."""
    right = standing if standing is not None else Standing.known(decider, True)
    keys = [approval_key(pending_id), right.key or approval_key(pending_id), AUDIT_KEY]
    args = [decision, decider, decider_name, _flag(right.granted), _flag(right.asker_counts), right.lookup or "", STEP_KEY_PREFIX]
    reply = run_script(conn, _DECIDE, keys, args)
    outcome = text(reply[0])
    if outcome == "missing":
        return Missing()
    approval = from_fields(zip(reply[1][::2], reply[1][1::2], strict=True))
    if outcome == "decided":
        return Decided(approval, text(reply[2]) == "1")
    if outcome == "stale":
        return Stale(approval)
    return Refused(approval) if outcome == "refused" else Unsettled(approval)


def settle(conn: redis.Redis, unsettled: Unsettled, decision: Decision, decider: str, decider_name: str,
           policy: Policy, directory: Directory) -> Decided | Stale | Missing | Refused:
    """After `Unsettled`: ask the directory (its answer cached for the next click; a failed lookup grants
    nothing), then decide with the clicker's right settled: one more round trip."""
    approval = unsettled.approval
    if not may_decide(decider, approval.requester, policy, directory):
        return Refused(approval)
    found = decide(conn, approval.pending_id, decision, decider, decider_name)
    return Refused(found.approval) if isinstance(found, Unsettled) else found  # granted: never unsettled


def resume_lost(conn: redis.Redis, stale: Approval) -> bool:
    """A decided call whose step closed but whose resume job does not exist (the bot died between
    deciding and enqueueing): a later click on the card repairs it. The EXISTS comes last, so a click
    on an open step costs one round trip, not two."""
    return (stale.decided and step_complete(conn, stale.run_id, stale.step)
            and not resume_queued(conn, stale.run_id, stale.step))


def _flag(value: bool) -> str:
    return "1" if value else "0"
