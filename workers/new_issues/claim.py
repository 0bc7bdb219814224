"""One triage run per issue: claimed by the repository and the issue number, never by the delivery.

One script claims the issue and records its run together, so a redelivered `issues.opened`, an
`edited` or a `reopened` finds the claim and starts nothing. The job is queued right after, by a
job id derived from the run (a second enqueue is a no-op); if the process dies in between, the
next delivery or retry of the webhook job finds the run still `queued` and queues it again.
"""

from __future__ import annotations

import uuid

import redis
from rq import Queue

from atlas.connection import text
from atlas.lua import run_script
from atlas.triage_settings import TriageSettings
from workers.new_issues import rates
from workers.runs.queueing import enqueue
from workers.runs.state import Origin, RunState
from workers.runs.store import RUN_TTL_SECONDS, RunStore, run_key
from workers.runs.triage_record import TriageRecord

CLAIM_TTL_SECONDS = 400 * 24 * 3600  # longer than any redelivery: an old issue is never triaged again

# KEYS: the claim, the run. ARGV: run id, run JSON, claim ttl, run ttl.
_CLAIM = """
local got = redis.call('GET', KEYS[1])
if got then return {0, got} end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]))
redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[4]))
return {1, ARGV[1]}
"""


def claim_key(repo: str, number: int) -> str:
    return f"atlas:triage:issue:{repo}#{number}"


def run_of(conn: redis.Redis, repo: str, number: int) -> str | None:
    """The triage run of an issue, if it was ever started."""
    raw = conn.get(claim_key(repo, number))
    return text(raw) if raw else None


def start(
    conn: redis.Redis,
    queue_name: str,
    record: TriageRecord,
    origin: Origin,
    fingerprint: str | None = None,
    *,
    key: str | None = None,
    limit: int | None = TriageSettings.rate,
    scope: str | None = None,
) -> tuple[str, bool]:
    """Claim the issue (or `key`: a proposal's own claim) and queue its triage run; (run id, whether this call
    started it). A claimed issue whose run is still queued is queued again (idempotent by job id): the repair
    after a lost enqueue. `fingerprint`: the settings of the process the issue came through; only a worker with
    the same triages it. A claim not taken yet counts against `limit` per hour in `scope` (the repository's, by
    default, at ATLAS_TRIAGE_RATE's default; None: no limit, a maintainer asked): over it, ("", False), nothing
    is claimed and the issue waits in the scope's overflow for the digest (rates.py)."""
    claim = key or claim_key(record.repo, record.issue)
    if (
        limit is not None
        and not conn.exists(claim)
        and not rates.admit(conn, scope or repo_scope(record.repo), claim, limit)
    ):
        return "", False
    run = RunState(
        id=f"triage-{uuid.uuid4().hex[:12]}",
        question=f"triage #{record.issue}",
        origin=origin,
        triage=record,
        settings_fingerprint=fingerprint,
    )
    return claim_run(conn, queue_name, claim, run, CLAIM_TTL_SECONDS)


def repo_scope(repo: str) -> str:
    """The rate scope of a repository's new issues."""
    return f"repo:{repo}"


def claim_run(conn: redis.Redis, queue_name: str, key: str, run: RunState, claim_ttl: int) -> tuple[str, bool]:
    """Claim `key` and record `run` in one script, then queue it; (the claimed run's id, whether this call
    claimed it). A claimed run still `queued` is queued again (idempotent by job id): the repair after a lost
    enqueue. Also how a click on "File as GitHub issue" starts its one filing run (workers/followup/)."""
    won, run_id = run_script(
        conn, _CLAIM, [key, run_key(run.id)], [run.id, run.model_dump_json(), claim_ttl, RUN_TTL_SECONDS]
    )
    run_id = text(run_id)
    if not won:
        try:
            if RunStore(conn).load(run_id).status != "queued":
                return run_id, False
        except Exception:
            return run_id, False
    enqueue(Queue(queue_name, connection=conn), run_id)
    return run_id, bool(won)
