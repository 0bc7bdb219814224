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

A click is decided only where its card lives (workers/approvals/place.py), checked first, inside the
script. And the click that closes a step queues the step's resume job in the same script (given the
bot's `JobTemplate`): a decision is never recorded without its resume, whatever dies right after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis
from rq.job import Job

from atlas.connection import text
from atlas.lua import run_script
from workers.approvals.approvers import Directory, Policy, Standing, may_decide
from workers.approvals.audit import AUDIT_KEY
from workers.approvals.place import LUA_MISPLACED, Place
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
from workers.runs.job_hash import JobTemplate
from workers.runs.queueing import resume_job_prefix, resume_queued

# KEYS: approval, the cached directory answer (the approval key again when none is needed), audit (last: `audit` writes
# there).
# ARGV: decision, decider, decider_name, granted, asker_counts ('1' or '0'), lookup ('members',
# 'admin' or ''), the step keys' prefix; 8-11: the click's place (Place.args, or four ''); 12-: the
# resume job (`_resume_args`: its run, id prefix, job key prefix, queue key, queues set, then the
# hash's fields; or nothing).
# The clicker's right (ARGV[2], [4]-[6], KEYS[2]) over the approval's fields `f`: nil when granted, else the reply.
LUA_REFUSAL = """local function refusal(f, raw)
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
  return nil
end
"""
# The approval's fields, or the reply when it is missing or the click is misplaced.
LUA_LOAD = """local raw = redis.call('HGETALL', KEYS[1])
if #raw == 0 then return {'missing'} end
local f = {}
for i = 1, #raw, 2 do f[raw[i]] = raw[i + 1] end
if misplaced(f, 7) then return {'misplaced'} end
local refused = refusal(f, raw)
if refused then return refused end
local user = ARGV[2]
"""

_DECIDE = (
    LUA_NOW
    + LUA_AUDIT
    + LUA_MISPLACED
    + LUA_REFUSAL
    + LUA_LOAD
    + """
if f['status'] ~= 'pending' or now >= tonumber(f['expires_at']) then return {'stale', raw} end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decider', user, 'decider_name', ARGV[3], 'decided_at', tostring(now))
adopt(KEYS[1], f, 7)
audit(KEYS[1], 'decision', {'decider', user, 'decision', ARGV[1]})
local step = ARGV[7] .. f['run_id'] .. ':' .. f['step']
local closed = '0'
if redis.call('HINCRBY', step, 'open', -1) <= 0 and redis.call('HSETNX', step, 'resume', tostring(now)) == 1 then
  closed = '1'
end
local queued = '0'
if closed == '1' and #ARGV > 11 and ARGV[12] == f['run_id'] then
  local id = ARGV[13] .. f['step']
  local job = ARGV[14] .. id
  if redis.call('EXISTS', job) == 0 then
    local fields = {}
    for i = 17, #ARGV, 2 do
      fields[#fields + 1] = ARGV[i]
      fields[#fields + 1] = ARGV[i] == 'description' and (ARGV[i + 1] .. ' resume ' .. f['step']) or ARGV[i + 1]
    end
    redis.call('HSET', job, unpack(fields))
    redis.call('SADD', ARGV[16], ARGV[15])
    redis.call('RPUSH', ARGV[15], id)
  end
  queued = '1'
end
return {'decided', redis.call('HGETALL', KEYS[1]), closed, queued}
"""
)


@dataclass(frozen=True)
class Decided:
    """This click decided the call (`approval` as it left it); `step_complete` is True for one caller per step."""

    approval: Approval
    step_complete: bool
    resume_queued: bool = False  # the script queued the step's resume (given a job template): nothing left to enqueue


@dataclass(frozen=True)
class Misplaced:
    """The click came from another platform, workspace, guild, channel or message than the card: nothing
    changed, and nothing about the approval is told."""


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


Outcome = Decided | Stale | Missing | Misplaced | Refused | Unsettled


def decide(
    conn: redis.Redis,
    pending_id: str,
    decision: Decision,
    decider: str,
    decider_name: str = "",
    standing: Standing | None = None,
    *,
    place: Place | None = None,
    resume: JobTemplate | None = None,
) -> Outcome:
    """Decide `pending_id` for `decider` in one round trip. `standing`: the clicker's right as the policy
    gives it (approvers.standing); None when the caller has authorized `decider` itself. `place`: where
    the click came from (every click handler passes it; None only for callers with no click). `resume`:
    the job template the closing click queues the step's resume with, in the same script."""
    right = standing if standing is not None else Standing.known(decider, True)
    outcome, approval, reply = run_checked(
        conn,
        _DECIDE,
        pending_id,
        decision,
        decider,
        decider_name,
        right,
        place,
        [STEP_KEY_PREFIX],
        _resume_args(resume, pending_id) if resume else [],
    )
    if outcome == "decided" and approval is not None:
        return Decided(approval, text(reply[2]) == "1", text(reply[3]) == "1")
    return not_done(outcome, approval)


def run_checked(
    conn: redis.Redis,
    script: str,
    pending_id: str,
    first: str,
    user: str,
    name: str,
    right: Standing,
    place: Place | None,
    slot7: list[str],
    tail: list[bytes | str],
) -> tuple[str, Approval | None, Any]:
    """Run a script built on `LUA_LOAD` (the decision's, a revision's) with its KEYS and ARGV laid out as it
    expects; (its outcome, the approval as it left it when there is one, the raw reply)."""
    keys = [approval_key(pending_id), right.key or approval_key(pending_id), AUDIT_KEY]
    args = [
        first,
        user,
        name,
        _flag(right.granted),
        _flag(right.asker_counts),
        right.lookup or "",
        *(slot7 or [""]),
        *(place.args() if place is not None else ["", "", "", ""]),
        *tail,
    ]
    reply = run_script(conn, script, keys, args)
    outcome = text(reply[0])
    if outcome in ("missing", "misplaced"):
        return outcome, None, reply
    return outcome, from_fields(zip(reply[1][::2], reply[1][1::2], strict=True)), reply


def not_done(outcome: str, approval: Approval | None) -> Stale | Missing | Misplaced | Refused | Unsettled:
    """The outcomes a checked script shares: nothing changed, and why."""
    if outcome == "misplaced":
        return Misplaced()
    if approval is None:
        return Missing()
    if outcome == "stale":
        return Stale(approval)
    return Refused(approval) if outcome == "refused" else Unsettled(approval)


def settle(
    conn: redis.Redis,
    unsettled: Unsettled,
    decision: Decision,
    decider: str,
    decider_name: str,
    policy: Policy,
    directory: Directory,
    *,
    place: Place | None = None,
    resume: JobTemplate | None = None,
) -> Decided | Stale | Missing | Misplaced | Refused:
    """After `Unsettled`: ask the directory (its answer cached for the next click; a failed lookup grants
    nothing), then decide with the clicker's right settled: one more round trip."""
    approval = unsettled.approval
    if not may_decide(decider, approval.requester, policy, directory):
        return Refused(approval)
    found = decide(conn, approval.pending_id, decision, decider, decider_name, place=place, resume=resume)
    return Refused(found.approval) if isinstance(found, Unsettled) else found  # granted: never unsettled


def resume_lost(conn: redis.Redis, stale: Approval) -> bool:
    """A decided call whose step closed but whose resume job does not exist (the bot died between
    deciding and enqueueing): a later click on the card repairs it. The EXISTS comes last, so a click
    on an open step costs one round trip, not two."""
    return (
        stale.decided
        and step_complete(conn, stale.run_id, stale.step)
        and not resume_queued(conn, stale.run_id, stale.step)
    )


def maybe_recorded(exc: redis.RedisError) -> bool:
    """Whether a decision that failed with `exc` may still have been recorded: anything but a failure to
    connect (redis-py words those "Error N connecting to ..." and "Timeout connecting to server") may
    have reached Redis after the script was sent, so the clicker is told it is unconfirmed, not undone."""
    return "connecting to" not in str(exc)


def _resume_args(template: JobTemplate, pending_id: str) -> list[bytes | str]:
    """What the script needs to queue the resume of the step `pending_id` belongs to, as `queueing.enqueue`
    would: the run (a pending id is `{run_id}.{call_id}`; the script checks it against the record), the
    job id and key prefixes (the script appends the step), the queue, RQ's set of queues, the hash."""
    run_id = pending_id.partition(".")[0]
    return [
        run_id,
        resume_job_prefix(run_id),
        Job.redis_job_namespace_prefix,
        template.queue_key,
        template.queues_key,
        *template.fields_for(run_id),
    ]


def _flag(value: bool) -> str:
    return "1" if value else "0"
