"""Every RQ job and callback Atlas queues, by the dotted name RQ stores in Redis: the one place they are written.

Why names and not functions: the web process and the core queue jobs without importing the worker's job
modules (which load openai and the agent loop). `tests/workers/runs/test_job_names.py` imports each name, so a
move that forgets this file fails there. `RENAMED` maps the names of an earlier release to today's, so jobs
that were queued (or scheduled) before an upgrade still run after it (`workers/process/rq_job.py`); drop an
entry one release after its move.
"""

from __future__ import annotations

CONTINUE_RUN = "workers.jobs.runs.continue_run"  # a run: its first step, a resume, a hand-over
ON_JOB_FAILURE = "workers.jobs.runs.on_job_failure"  # RQ's failure callback of a run's job
EXPIRE_STEP = "workers.jobs.expiry.expire_step"  # an approval card's expiry, scheduled when the gate opens
APPLY_EVENT = "workers.jobs.github.apply_event"  # one GitHub webhook delivery
PERIODIC_SYNC = "workers.jobs.github.periodic_sync"  # the incremental sync, rescheduling itself
POST_DIGEST = (
    "workers.jobs.digest.post_digest"  # the triage channel's digest of issues over the rate, rescheduling itself
)
RECALIBRATE = "workers.jobs.calibration.recalibrate"  # a repository's triage calibration, asked by each sync

ALL = (CONTINUE_RUN, ON_JOB_FAILURE, EXPIRE_STEP, APPLY_EVENT, PERIODIC_SYNC, POST_DIGEST, RECALIBRATE)

# Names before the house moved (0.3): the jobs lived beside the core they call.
RENAMED: dict[str, str] = {
    "workers.runs.jobs.continue_run": CONTINUE_RUN,
    "workers.runs.jobs.on_job_failure": ON_JOB_FAILURE,
    "workers.approvals.expiry.expire_step": EXPIRE_STEP,
    "workers.github_jobs.apply_event": APPLY_EVENT,
    "workers.github_jobs.periodic_sync": PERIODIC_SYNC,
}


def current(name: str) -> str:
    """Today's name of a job function stored under `name` (itself when it was never renamed)."""
    return RENAMED.get(name, name)
