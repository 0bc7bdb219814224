"""Putting runs on the queue: one job per run (or per resume), never queued twice."""

from __future__ import annotations

from typing import Any

import redis
from rq import Callback, Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.job import Job

from workers.runs import RunNotFound, RunStore
from workers.state import Origin, RunState, Turn

JOB_TIMEOUT_SECONDS = 180  # a run's budget is 60 working seconds; this bounds a stuck model call
RESULT_TTL_SECONDS = 3600
# Transient model errors (after the SDK's own backoff) and abandoned jobs (worker died). No interval:
# a delayed retry waits for RQ's scheduler, whose lock a killed worker can hold for minutes.
RETRY = Retry(max=2)


def job_id(run_id: str, resume: int = 0) -> str:
    """Derived from the run id, so the same run (or the same resume) can't be queued twice."""
    return f"atlas-run-{run_id}" if resume == 0 else f"atlas-run-{run_id}-resume-{resume}"


def job_options(run_id: str, resume: int = 0) -> dict[str, Any]:
    """`Queue.enqueue` keywords for `continue_run(run_id)`: every path that queues a run uses these."""
    from workers.jobs import on_job_failure

    return {
        "job_id": job_id(run_id, resume),
        "job_timeout": JOB_TIMEOUT_SECONDS,
        "result_ttl": RESULT_TTL_SECONDS,
        "retry": RETRY,
        "on_failure": Callback(on_job_failure),
        "description": f"atlas run {run_id}" + (f" resume {resume}" if resume else ""),
    }


def enqueue(queue: Queue, run_id: str, resume: int = 0) -> Job:
    """Enqueue `continue_run(run_id)`; a second enqueue of the same job id returns the first job."""
    from workers.jobs import continue_run

    try:
        return queue.enqueue(continue_run, run_id, unique=True, **job_options(run_id, resume))
    except DuplicateJobError:
        return Job.fetch(job_id(run_id, resume), connection=queue.connection)


def submit(
    conn: redis.Redis,
    queue_name: str,
    question: str,
    origin: Origin | None = None,
    history: list[Turn] | None = None,
    run_id: str | None = None,
) -> RunState:
    """Record a new run and queue it. The caller returns at once; a worker does the rest."""
    run = RunState(question=question, origin=origin or Origin(), history=history or [])
    if run_id:
        run.id = run_id
    RunStore(conn).save(run)
    enqueue(Queue(queue_name, connection=conn), run.id)
    return run


def resume_if_waiting(conn: redis.Redis, queue_name: str, run_id: str, step: int) -> bool:
    """Enqueue a paused run's resume if it is still waiting on `step` (idempotent by job id). For the
    click that closed a step, and for a click that finds the step closed but its resume never queued."""
    try:
        run = RunStore(conn).load(run_id)
    except RunNotFound:
        return False
    if run.status == "awaiting_approval" and run.pending and run.pending[0].step == step:
        enqueue(Queue(queue_name, connection=conn), run_id, resume=step)
        return True
    return False
