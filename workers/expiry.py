"""Approval expiry: one RQ job per paused step, scheduled for its deadline (ATLAS_APPROVAL_TTL, 24 h).

The job expires the step's undecided calls (atomically, so a click racing it either wins before or
finds the card expired), edits their cards to say so, and enqueues the resume, which turns the
expired calls into error outputs and ends the run with a partial answer. It also repairs a step
whose last click was recorded but whose resume was never enqueued (the bot died in between):
enqueueing is idempotent, so it simply enqueues again. One worker per deployment
runs RQ's scheduler (`atlas worker --with-scheduler`, the Procfile's `scheduler` process), which
moves the job onto the queue when it is due.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone

from rq import Queue
from rq.exceptions import DuplicateJobError

from workers import approvals, runtime
from workers.queueing import enqueue

log = logging.getLogger("atlas.expiry")

JOB_TIMEOUT_SECONDS = 60
RESULT_TTL_SECONDS = 3600


def job_id(run_id: str, step: int) -> str:
    return f"atlas-expire-{run_id}-{step}"


def schedule(queue: Queue, run_id: str, step: int, at: float) -> None:
    """Schedule `expire_step(run_id, step)` for unix time `at`; scheduling the same step twice is a no-op."""
    try:
        queue.enqueue_at(
            datetime.fromtimestamp(at, tz=timezone.utc),
            expire_step,
            run_id,
            step,
            job_id=job_id(run_id, step),
            unique=True,
            job_timeout=JOB_TIMEOUT_SECONDS,
            result_ttl=RESULT_TTL_SECONDS,
            description=f"expire approvals of run {run_id} step {step}",
        )
    except DuplicateJobError:
        pass


def expire_step(run_id: str, step: int) -> int:
    """RQ job: expire what is still undecided, edit those cards, make sure the resume is queued."""
    rt = runtime.current()
    expired, closed = approvals.expire_step(rt.conn, run_id, step)
    if expired:
        log.info("run %s step %s: %d approval(s) expired", run_id, step, len(expired))
        _edit_cards(rt, expired)
    if closed or approvals.step_complete(rt.conn, run_id, step):
        run = rt.store.load(run_id)
        if run.status == "awaiting_approval" and run.pending and run.pending[0].step == step:
            enqueue(Queue(rt.settings.queue_name, connection=rt.conn), run_id, resume=step,
                    slack_outage_seconds=rt.settings.slack_outage_seconds)
    return len(expired)


def _edit_cards(rt: runtime.Runtime, expired: list[approvals.Approval]) -> None:
    """Each card is edited on its run's platform (a run that can't be loaded is taken as Slack's)."""
    from workers import platforms
    from workers.runs import RunNotFound

    for approval in expired:
        try:
            kind = rt.store.load(approval.run_id).origin.kind
        except RunNotFound:
            kind = "slack"
        platform = platforms.for_run(rt.settings, rt.store, kind)
        if platform is not None:
            platform.card_decided(approval)
