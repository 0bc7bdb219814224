"""The web process's half of "File as GitHub issue": claim the answer and queue its one filing run.

One script claims the answer (by its run) and records the filing run together, so a second click or a
redelivered one starts nothing; a claimed filing still `queued` is queued again (idempotent by job id), the
repair after a lost enqueue. Kept apart from filing.py, the worker's half, so the web process never loads
the approval gate and the agent loop behind it.
"""

from __future__ import annotations

import uuid

import redis
from rq import Queue

from atlas.connection import text
from atlas.lua import run_script
from workers.followup import subscriptions as subs
from workers.runs.filing_record import FilingRecord
from workers.runs.queueing import enqueue
from workers.runs.state import Origin, RunState
from workers.runs.store import RUN_TTL_SECONDS, RunStore, run_key

CLAIM_TTL_SECONDS = RUN_TTL_SECONDS  # as long as the answer's run is kept: its button files at most once

# KEYS: the claim, the run. ARGV: run id, run JSON, claim ttl, run ttl.
_CLAIM = """
local got = redis.call('GET', KEYS[1])
if got then return {0, got} end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]))
redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[4]))
return {1, ARGV[1]}
"""


def claim_key(source_run: str) -> str:
    return f"atlas:file-issue:{source_run}"


def start(conn: redis.Redis, queue_name: str, source: RunState, clicker: str) -> tuple[str, bool]:
    """Claim the answer of `source` and queue its filing run; (filing run id, whether this call started it)."""
    place = subs.place_of(source)
    if place is None:
        raise ValueError(f"run {source.id} has no thread to file from")
    origin = Origin(kind=place.kind, user=clicker, channel=source.origin.channel if place.kind == "slack" else place.channel,
                    thread_ts=place.thread_ts, message_ts=place.thread_ts, team=place.team)
    run = RunState(id=f"file-{uuid.uuid4().hex[:12]}", question=f"file an issue from run {source.id}", origin=origin,
                   filing=FilingRecord(source_run=source.id))
    won, run_id = run_script(conn, _CLAIM, [claim_key(source.id), run_key(run.id)],
                             [run.id, run.model_dump_json(), CLAIM_TTL_SECONDS, RUN_TTL_SECONDS])
    run_id = text(run_id)
    if not won:
        try:
            if RunStore(conn).load(run_id).status != "queued":
                return run_id, False
        except Exception:
            return run_id, False
    enqueue(Queue(queue_name, connection=conn), run_id)
    return run_id, bool(won)
