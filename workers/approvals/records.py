"""Approval records in Redis: opened when a run pauses, decided atomically, expired by a job.

Keys: `atlas:approval:{pending_id}` (a hash per pending call: the call, who asked, status, who
decided and when, where its card is) and `atlas:approvals:{run_id}:{step}` (per paused step: how
many calls are still open, the pending ids, and whether the resume was claimed).

Every state change is one Lua script, so it is atomic and ordered on the server: the first decision
wins and later clicks (double clicks, a second approver, a click after expiry or on a finished
card) change nothing; the change and its audit entry are written together; and exactly one caller,
the one whose decision or expiry closes the step, is told to enqueue the resume. Times are the
Redis server's (TIME), so bot and worker clocks never disagree about expiry. Opening and expiring
are here; deciding (with the clicker's authorization) is workers/approvals/decisions.py.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

import redis
from pydantic import BaseModel
from rq import Queue
from rq.exceptions import DuplicateJobError

from atlas.connection import text
from atlas.lua import run_script
from workers.approvals.audit import AUDIT_KEY
from workers.runs.job_names import EXPIRE_STEP
from workers.runs.state import PendingCall, RunState

Status = Literal["pending", "approved", "denied", "expired"]
Decision = Literal["approved", "denied"]
RECORD_TTL_SECONDS = 30 * 24 * 3600  # kept this long after expiry, like run records

LUA_NOW = "local t = redis.call('TIME'); local now = tonumber(t[1]) + tonumber(t[2]) / 1000000\n"
LUA_AUDIT = """local function audit(key, kind, extra)
  local f = redis.call('HMGET', key, 'run_id', 'pending_id', 'name', 'arguments', 'issue', 'requester')
  local entry = {'kind', kind, 'at', tostring(now), 'run', f[1], 'pending_id', f[2], 'tool', f[3],
                 'arguments', f[4], 'issue', f[5] or '', 'requester', f[6] or ''}
  for i = 1, #extra do entry[#entry + 1] = extra[i] end
  redis.call('XADD', KEYS[#KEYS], '*', unpack(entry))
end
"""

# KEYS: step, approval..., audit. ARGV: ttl, keep, ids_csv, the run's platform and team, then per call: 8 fields.
_OPEN = (
    LUA_NOW
    + LUA_AUDIT
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = #KEYS - 2
local expires = now + tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'open', n, 'ids', ARGV[3], 'expires_at', tostring(expires))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
for i = 1, n do
  local b = 5 + (i - 1) * 8
  redis.call('HSET', KEYS[i + 1], 'pending_id', ARGV[b + 1], 'run_id', ARGV[b + 2], 'call_id', ARGV[b + 3],
    'name', ARGV[b + 4], 'arguments', ARGV[b + 5], 'step', ARGV[b + 6], 'requester', ARGV[b + 7], 'issue', ARGV[b + 8],
    'status', 'pending', 'created_at', tostring(now), 'expires_at', tostring(expires), 'platform', ARGV[4],
    'team', ARGV[5])
  redis.call('EXPIRE', KEYS[i + 1], tonumber(ARGV[2]))
  audit(KEYS[i + 1], 'request', {})
end
return n
"""
)

# KEYS: step, approval..., audit. Expires the step's undecided calls.
_EXPIRE = (
    LUA_NOW
    + LUA_AUDIT
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0} end
local expired = 0
for i = 2, #KEYS - 1 do
  if redis.call('HGET', KEYS[i], 'status') == 'pending' then
    redis.call('HSET', KEYS[i], 'status', 'expired', 'decided_at', tostring(now))
    audit(KEYS[i], 'decision', {'decision', 'expired'})
    redis.call('HINCRBY', KEYS[1], 'open', -1)
    expired = expired + 1
  end
end
local claimed = 0
if tonumber(redis.call('HGET', KEYS[1], 'open')) <= 0 then
  claimed = redis.call('HSETNX', KEYS[1], 'resume', tostring(now))
end
return {expired, claimed}
"""
)


class Approval(BaseModel):
    """One pending side-effect call and what became of it."""

    pending_id: str
    run_id: str
    call_id: str
    name: str
    arguments: str
    step: int
    requester: str = ""
    issue: str = ""
    status: Status = "pending"
    decider: str = ""
    decider_name: str = ""
    decided_at: float | None = None
    created_at: float = 0.0
    expires_at: float = 0.0
    channel: str = ""
    card_ts: str = ""
    card_blocks: str = ""  # JSON: what the card showed, so edits keep showing exactly that
    card_posting: str = ""  # when a card was about to be posted (epoch seconds), cleared once its message is recorded
    platform: str = ""  # where the run came from, so where its cards live (workers/approvals/place.py)
    team: str = ""
    revision: int = 0  # how many times the arguments were changed before the decision (workers/approvals/revisions.py)

    @property
    def decided(self) -> bool:
        return self.status != "pending"

    @property
    def decider_label(self) -> str:
        """How the model and the audit name the decider: @name when known, else the user id."""
        return self.decider_name or self.decider or "someone"


def approval_key(pending_id: str) -> str:
    return f"atlas:approval:{pending_id}"


STEP_KEY_PREFIX = "atlas:approvals:"


def step_key(run_id: str, step: int) -> str:
    return f"{STEP_KEY_PREFIX}{run_id}:{step}"


def open_step(conn: redis.Redis, run: RunState, pending: list[PendingCall], ttl_seconds: int) -> bool:
    """Record a paused step's calls as pending (with 'request' audit entries). Idempotent; False if already open."""
    from workers.approvals.audit import issue_of

    if not pending:
        return False
    step = pending[0].step
    args: list[str | int] = [
        ttl_seconds,
        ttl_seconds + RECORD_TTL_SECONDS,
        ",".join(p.pending_id for p in pending),
        run.origin.kind,
        run.origin.team or "",
    ]
    for p in pending:
        args += [p.pending_id, run.id, p.call_id, p.name, p.arguments, p.step, requester(run), issue_of(p.arguments)]
    keys = [step_key(run.id, step), *(approval_key(p.pending_id) for p in pending), AUDIT_KEY]
    return bool(run_script(conn, _OPEN, keys, args))


def requester(run: RunState) -> str:
    """Who asked for the step's calls: the asker, or for a proposal over MCP its credited client (`mcp:` so it
    never equals a chat user's id, which may decide their own request)."""
    proposal = run.triage.proposal if run.triage is not None else None
    if not run.origin.user and proposal and proposal.get("by"):
        return f"mcp:{proposal['by']}"
    return run.origin.user or ""


def expire_step(conn: redis.Redis, run_id: str, step: int) -> tuple[list[Approval], bool]:
    """Expire the step's undecided calls; returns the calls it expired and whether this closed the step."""
    ids = step_ids(conn, run_id, step)
    keys = [step_key(run_id, step), *(approval_key(i) for i in ids), AUDIT_KEY]
    before = {a.pending_id for a in for_step(conn, run_id, step) if not a.decided}
    expired, claimed = run_script(conn, _EXPIRE, keys)
    now_expired = [a for a in for_step(conn, run_id, step) if a.pending_id in before and a.status == "expired"]
    return (now_expired if expired else []), bool(claimed)


def step_ids(conn: redis.Redis, run_id: str, step: int) -> list[str]:
    raw = conn.hget(step_key(run_id, step), "ids")
    return [i for i in text(raw).split(",") if i] if raw else []


def step_complete(conn: redis.Redis, run_id: str, step: int) -> bool:
    """Every call of the step is decided (or expired) and the resume was claimed."""
    return conn.hget(step_key(run_id, step), "resume") is not None


def for_step(conn: redis.Redis, run_id: str, step: int) -> list[Approval]:
    """The step's approvals in the order the model made the calls."""
    found = [load(conn, i) for i in step_ids(conn, run_id, step)]
    return [a for a in found if a is not None]


def load(conn: redis.Redis, pending_id: str) -> Approval | None:
    raw = conn.hgetall(approval_key(pending_id))
    return from_fields(raw.items()) if raw else None


def from_fields(pairs: Iterable[tuple[bytes | str, bytes | str]]) -> Approval:
    """An approval from its hash's fields (HGETALL's reply, as a mapping or as a script returns it)."""
    values: dict[str, Any] = {text(k): text(v) for k, v in pairs}
    values["decided_at"] = float(values["decided_at"]) if values.get("decided_at") else None
    return Approval.model_validate(values)


def reserve_card(conn: redis.Redis, pending_id: str, channel: str, blocks: str = "", at: float | None = None) -> None:
    """Before a card is posted: the channel it goes to, what it shows and when (`at`, epoch seconds). If the
    poster dies before `attach_card`, a click on that card is still taken (and names it:
    workers/approvals/place.py), and the retry looks for it from then on (workers/approvals/card_once.py)."""
    if conn.exists(approval_key(pending_id)):
        when = f"{time.time() if at is None else at:.6f}"
        conn.hset(approval_key(pending_id), mapping={"channel": channel, "card_posting": when, "card_blocks": blocks})


def attach_card(conn: redis.Redis, pending_id: str, channel: str, ts: str, blocks: str = "") -> None:
    """Remember where a call's card was posted and what it showed, so later edits can keep it."""
    if conn.exists(approval_key(pending_id)):
        conn.hset(
            approval_key(pending_id),
            mapping={"channel": channel, "card_ts": ts, "card_blocks": blocks, "card_posting": ""},
        )


EXPIRY_JOB_TIMEOUT_SECONDS = 60
EXPIRY_RESULT_TTL_SECONDS = 3600
EXPIRY_FAILURE_TTL_SECONDS = RECORD_TTL_SECONDS  # a failed expiry is worth a look while its records last


def expiry_job_id(run_id: str, step: int) -> str:
    return f"atlas-expire-{run_id}-{step}"


def schedule_expiry(queue: Queue, run_id: str, step: int, at: float) -> None:
    """Schedule `workers.jobs.expiry.expire_step(run_id, step)` for unix time `at`; scheduling the same step twice
    is a no-op. The job is named by its path (as RQ stores it), so the core does not import the job's module.

    The job lives (RQ's `ttl`, counted from now) until the step's records expire, `at` + RECORD_TTL_SECONDS:
    after that it has nothing left to expire. With no scheduler running it would otherwise stay forever;
    a scheduler that comes back late still finds it, and a shorter TTL would let it vanish unrun."""
    ttl = max(0, math.ceil(at - time.time())) + RECORD_TTL_SECONDS
    try:
        queue.enqueue_at(
            datetime.fromtimestamp(at, tz=UTC),
            EXPIRE_STEP,
            run_id,
            step,
            job_id=expiry_job_id(run_id, step),
            unique=True,
            job_timeout=EXPIRY_JOB_TIMEOUT_SECONDS,
            result_ttl=EXPIRY_RESULT_TTL_SECONDS,
            ttl=ttl,
            failure_ttl=EXPIRY_FAILURE_TTL_SECONDS,
            description=f"expire approvals of run {run_id} step {step}",
        )
    except DuplicateJobError:
        pass
