"""Why an issue got no card in the chaos bench (bench/chaos.py): on a timeout, each uncarded issue's triage state
as Redis holds it (its webhook's answer, its claim, its run's status, its job's, the rate overflow, the sync's
watermark), so a failed soak says whether Atlas lost the issue or the bench gave up too soon. `BENCH_CHAOS_KEEP`
keeps the rig's home (the workers' and serve's logs, Redis's data) for a look afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
from rq import Queue
from rq.job import Job
from rq.registry import FailedJobRegistry, ScheduledJobRegistry

from bench import chaos_triage
from bench.chaos_rig import QUEUE, Rig
from workers.new_issues import catch_up, claim
from workers.runs.queueing import job_id
from workers.runs.store import RunStore


@contextmanager
def home() -> Iterator[Path]:
    """The rig's temporary home; kept (and named on stderr) when BENCH_CHAOS_KEEP is set."""
    path = Path(tempfile.mkdtemp(prefix="atlas-bench-chaos-"))
    try:
        yield path
    finally:
        if os.environ.get("BENCH_CHAOS_KEEP"):
            print(f"bench chaos: the rig's home is kept at {path}", file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)


def issue_state(conn: redis.Redis, queue_name: str, repo: str, number: int) -> str:
    """One issue's triage as Redis holds it, in a line."""
    run_id = claim.run_of(conn, repo, number)
    overflow = conn.zscore(f"atlas:triage:overflow:{claim.repo_scope(repo)}", claim.claim_key(repo, number))
    parts = [f"claim={run_id or 'none'}", f"rate overflow={'yes' if overflow is not None else 'no'}"]
    if run_id:
        try:
            run = RunStore(conn).load(run_id)
            actions = len(run.triage.actions) if run.triage is not None else None
            parts.append(f"run status={run.status}, actions to decide={actions}")
        except Exception as error:  # noqa: BLE001 - a diagnostic names whatever it finds
            parts.append(f"run record unreadable ({type(error).__name__}: {error})")
        queue = Queue(queue_name, connection=conn)
        job = Job.fetch_many([job_id(run_id)], connection=conn)[0]
        parts.append(f"job={job.get_status() if job is not None else 'absent'}")
        parts.append(f"in failed registry={job_id(run_id) in FailedJobRegistry(queue=queue).get_job_ids()}")
        parts.append(f"scheduled={job_id(run_id) in ScheduledJobRegistry(queue=queue).get_job_ids()}")
    return ", ".join(parts)


def uncarded(rig: Rig, numbers: list[int], webhook_status: dict[int, int]) -> str:
    """What the bench prints when it gives up on the cards: each uncarded issue and its state."""
    conn, repo = rig.conn(), rig.github.repo.full_name
    shown = [chaos_triage.text_of(c) for c in chaos_triage.cards(rig.api)]
    missing = [n for n in numbers if not any(f"#{n} " in s for s in shown)]
    lines = [f"issues without a card: {missing} (watermark {catch_up.watermark(conn, repo)})"]
    for number in missing:
        state = issue_state(conn, QUEUE, repo, number)
        lines.append(f"  #{number}: webhook answered {webhook_status.get(number)}, {state}")
    return "\n".join(lines)


def twice(rig: Rig, thread: str) -> Path:
    """A thread answered twice: every Web API call the stand-in took for it (method, status, ts, when) and the
    run records Redis holds for it, written into the rig's home (kept with `BENCH_CHAOS_KEEP`) to be traced in
    the workers' logs."""
    path = rig.home / f"twice-{thread}.jsonl"
    mine = [c for c in rig.api.calls if thread in (c.args.get("thread_ts"), c.args.get("ts"))]
    ts = {str(c.reply.get("ts")) for c in mine if c.reply.get("ts")}
    mine += [c for c in rig.api.calls if c not in mine and c.args.get("ts") in ts]  # updates and deletes by ts
    lines = [
        json.dumps({"method": c.method, "status": c.status, "at": c.at, "args": c.args, "reply": c.reply}, default=str)
        for c in sorted(mine, key=lambda c: c.at)
    ]
    conn = rig.conn()
    for key in conn.scan_iter("atlas:run:*", count=1000):
        raw = conn.get(key)
        if isinstance(raw, bytes) and thread.encode() in raw:
            lines.append(json.dumps({"run": key.decode(), "record": json.loads(raw)}))
    path.write_text("\n".join(lines) + "\n")
    return path
