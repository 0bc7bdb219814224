"""A Slack message's intake in one Redis round trip: claim it, record its run, queue its job, confirm.

One script instead of a claim and then a transaction: the ack waits on Redis once, and nothing is
ever half-taken (a pending claim with no run). The claim rules are bot/claims.py's: a confirmed key
is a duplicate; a pending key (another process's two-step claim, or a Discord-style claim in
flight) is `in_flight` and Slack retries later; a run recorded earlier whose confirmation was lost
is confirmed now and is a duplicate. The thread's earlier turns are spliced into the run record
inside the script, and the job hash comes from RQ's own layout (workers/runs/job_hash.py).
Mentions taken at the same moment share round trips (atlas/batched_script.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal, cast

import redis

from atlas.batched_script import BatchedScript
from atlas.connection import text
from bot.claims import CONFIRMED_TTL_SECONDS, ENQUEUED, PENDING_TTL_SECONDS, Claim
from workers.runs.job_hash import JobTemplate
from workers.runs.queued_record import QueuedRecord
from workers.runs.state import Origin
from workers.runs.store import RUN_TTL_SECONDS, run_key

IntakeOutcome = Literal["queued", "duplicate", "in_flight"]
WAIT_SECONDS = 2.0  # a mention's wait for its turn and its reply, under Slack's 3 s; then it is kept for later

# KEYS: the n claim keys, the run key, the thread's turns key, the job key, the queue key, RQ's set
# of queues. ARGV: n, the confirmed marker, its TTL, record ('1' or '0'), the run record without its
# history and closing brace, the run TTL, the job id, then the job hash's per-run fields and values.
# The template's constant fields are written into the script's text (one script per template), so
# each call sends only what varies. One SET ... GET per claim key confirms it and tells a duplicate (it was
# confirmed) from one in flight (any other value), one command a key instead of a GET and a SET (issue 40). A
# duplicate or a delivery in flight gives back what it took: a key it found empty is deleted, another delivery's
# pending claim is restored (for the pending TTL again: at most that much longer).
_INTAKE = """
local n = tonumber(ARGV[1])
local old, queued, held = {}, false, false
for i = 1, n do
  old[i] = redis.call('SET', KEYS[i], ARGV[2], 'EX', ARGV[3], 'GET')
  if old[i] == ARGV[2] then queued = true elseif old[i] then held = true end
end
if queued or held then
  for i = 1, n do
    if not old[i] then redis.call('DEL', KEYS[i])
    elseif old[i] ~= ARGV[2] then redis.call('SET', KEYS[i], old[i], 'EX', {pending_ttl}) end
  end
  if queued then return 'duplicate' end
  return 'in_flight'
end
if redis.call('EXISTS', KEYS[n + 1]) == 1 then return 'duplicate' end
if ARGV[4] == '1' then
  local turns = redis.call('LRANGE', KEYS[n + 2], 0, -1)
  redis.call('SET', KEYS[n + 1], ARGV[5] .. ',"history":[' .. table.concat(turns, ',') .. ']}', 'EX', ARGV[6])
  redis.call('SADD', KEYS[n + 5], KEYS[n + 4])
  redis.call('HSET', KEYS[n + 3], {constant_fields}unpack(ARGV, 8))
  redis.call('RPUSH', KEYS[n + 4], ARGV[7])
end
return 'queued'
"""


def _lua_string(value: bytes | str) -> str:
    """A Lua string literal for any bytes: letters and digits as they are, every other byte as \\ddd."""
    raw = value.encode() if isinstance(value, str) else value
    return '"' + "".join(chr(b) if chr(b).isascii() and chr(b).isalnum() else f"\\{b:03d}" for b in raw) + '"'


@dataclass(frozen=True)
class NewRun:
    """A question to record as a new run: what was asked, and where (a Slack origin)."""

    question: str
    origin: Origin


class Intake:
    """The registered script, with the job template's constant fields in it; built once per process.
    `fingerprint`: the settings fingerprint the runs taken here carry (in the record's fixed part,
    written once, not per mention)."""

    def __init__(self, conn: redis.Redis, template: JobTemplate, fingerprint: str | None = None) -> None:
        constants = "".join(f"{_lua_string(k)}, {_lua_string(v)}, " for k, v in template.fields)
        source = _INTAKE.replace("{constant_fields}", constants).replace("{pending_ttl}", str(PENDING_TTL_SECONDS))
        self.script = BatchedScript(conn, source, wait_seconds=WAIT_SECONDS)
        self.template = template
        self.record = QueuedRecord.build("slack", fingerprint)

    def take(self, claim: Claim, run: NewRun | None, thread_key: str, run_id: str) -> IntakeOutcome:
        """Claim, and if the message is ours, record `run` (None: nothing to run) and queue its job.
        Raises redis.RedisError when Redis is unreachable: then nothing was written."""
        keys = [
            *claim.keys,
            run_key(run_id),
            thread_key,
            self.template.job_key(run_id),
            self.template.queue_key,
            self.template.queues_key,
        ]
        args: list[bytes | str | int] = [len(claim.keys), ENQUEUED, CONFIRMED_TTL_SECONDS]
        if run is None:
            args += ["0", "", RUN_TTL_SECONDS, ""]
        else:
            head = self.record.head(run_id, run.question, run.origin, time.time())
            args += ["1", head, RUN_TTL_SECONDS, self.template.job_id(run_id), *self.template.per_run(run_id)]
        reply = self.script(keys=keys, args=args)
        return cast(IntakeOutcome, text(reply))  # the script returns one of the outcomes
