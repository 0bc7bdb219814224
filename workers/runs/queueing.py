"""Putting runs on the queue: one job per run (or per resume), never queued twice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import redis
from rq import Callback, Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.job import Job

from workers.errors import RunNotFound
from workers.runs.job_names import CONTINUE_RUN, ON_JOB_FAILURE
from workers.runs.record_json import RUN_TTL_SECONDS

if TYPE_CHECKING:  # imported where a run is built: queueing one by id (a warm `atlas ask`) needs no pydantic
    from workers.runs.state import Origin, RunState, Turn

JOB_TIMEOUT_SECONDS = 180  # a run's budget is 60 working seconds; this bounds a stuck model call
DEFAULT_SLACK_OUTAGE_SECONDS = 900.0  # Settings.slack_outage_seconds
RESULT_TTL_SECONDS = 3600
# A failed job (its hash, its place in the failed registry, its result stream) lasts as long as its run's record,
# not forever: RQ keeps a failure without a TTL when the job names none.
FAILURE_TTL_SECONDS = RUN_TTL_SECONDS
# Transient model errors (after the SDK's own backoff) and abandoned jobs (worker died). No interval:
# a delayed retry waits for RQ's scheduler, whose lock a killed worker can hold for minutes.
RETRY = Retry(max=2)
# The job functions by dotted name (workers/runs/job_names.py): what RQ stores either way, and queueing a run
# then needs neither workers.jobs.runs nor what it imports (openai, the agent loop): ~0.3 s of `atlas ask`.


def settings_queue(queue_name: str, fingerprint: str) -> str:
    """The queue of runs that must be answered under one set of settings (`atlas ask` uses it)."""
    return f"{queue_name}-{fingerprint}"


def job_id(run_id: str, resume: int = 0) -> str:
    """Derived from the run id, so the same run (or the same resume) can't be queued twice."""
    return f"atlas-run-{run_id}" if resume == 0 else f"{resume_job_prefix(run_id)}{resume}"


def resume_job_prefix(run_id: str) -> str:
    """A resume's job id without its step (the decision script appends the step it closed)."""
    return f"atlas-run-{run_id}-resume-"


def job_timeout(max_seconds: float = 60.0, slack_outage_seconds: float = DEFAULT_SLACK_OUTAGE_SECONDS) -> int:
    """A run job's time limit: JOB_TIMEOUT_SECONDS for the default 60 working seconds (as much longer
    as a larger ATLAS_MAX_SECONDS asks for), plus the time an answer (and the note if it is lost) may
    wait out a Slack outage."""
    return int(JOB_TIMEOUT_SECONDS + max(0, int(max_seconds) - 60) + 2 * slack_outage_seconds)


def job_options(
    run_id: str, resume: int = 0, *, slack_outage_seconds: float = DEFAULT_SLACK_OUTAGE_SECONDS
) -> dict[str, Any]:
    """`Queue.enqueue` keywords for `continue_run(run_id)`: every path that queues a run uses these."""
    return {
        "job_id": job_id(run_id, resume),
        "job_timeout": job_timeout(slack_outage_seconds=slack_outage_seconds),
        "result_ttl": RESULT_TTL_SECONDS,
        "failure_ttl": FAILURE_TTL_SECONDS,
        "retry": RETRY,
        "on_failure": Callback(ON_JOB_FAILURE),
        "description": f"atlas run {run_id}" + (f" resume {resume}" if resume else ""),
    }


def enqueue(
    queue: Queue, run_id: str, resume: int = 0, *, slack_outage_seconds: float = DEFAULT_SLACK_OUTAGE_SECONDS
) -> Job:
    """Enqueue `continue_run(run_id)`; a second enqueue of the same job id returns the first job."""
    options = job_options(run_id, resume, slack_outage_seconds=slack_outage_seconds)
    try:
        return queue.enqueue(CONTINUE_RUN, run_id, unique=True, **options)
    except DuplicateJobError:
        return Job.fetch(job_id(run_id, resume), connection=queue.connection)


def submit(
    conn: redis.Redis,
    queue_name: str,
    question: str,
    origin: Origin | None = None,
    history: list[Turn] | None = None,
    run_id: str | None = None,
    fingerprint: str | None = None,
) -> RunState:
    """Record a new run and queue it. The caller returns at once; a worker does the rest.

    `fingerprint` is the submitter's `Settings.fingerprint`: only a worker with the same one answers.
    """
    from workers.runs.state import Origin, RunState
    from workers.runs.store import RunStore

    run = RunState(
        question=question,
        origin=origin or Origin(),
        history=history or [],
        settings_fingerprint=fingerprint,
        unfiled=True,
    )
    if run_id:
        run.id = run_id
    RunStore(conn).save(run)
    enqueue(Queue(queue_name, connection=conn), run.id)
    return run


def resume_queued(conn: redis.Redis, run_id: str, step: int) -> bool:
    """The step's resume job exists (queued, running or kept as finished): one EXISTS, so a click on a
    decided card checks this before the costlier `resume_if_waiting` repair."""
    return bool(conn.exists(Job.key_for(job_id(run_id, step))))


def resume_if_waiting(
    conn: redis.Redis,
    queue_name: str,
    run_id: str,
    step: int,
    *,
    slack_outage_seconds: float = DEFAULT_SLACK_OUTAGE_SECONDS,
) -> bool:
    """Enqueue a paused run's resume if it is still waiting on `step` (idempotent by job id). For the
    click that closed a step, and for a click that finds the step closed but its resume never queued."""
    from workers.runs.store import RunStore

    try:
        run = RunStore(conn).load(run_id)
    except RunNotFound:
        return False
    if run.status == "awaiting_approval" and any(
        p.step == step for p in run.pending
    ):  # a triage run: a step per action
        enqueue(Queue(queue_name, connection=conn), run_id, resume=step, slack_outage_seconds=slack_outage_seconds)
        return True
    return False
