"""Approval expiry: one RQ job per paused step, scheduled for its deadline (ATLAS_APPROVAL_TTL, 24 h).

The job expires the step's undecided calls (atomically, so a click racing it either wins before or
finds the card expired), edits their cards to say so, and enqueues the resume, which turns the
expired calls into error outputs and ends the run with a partial answer. It also repairs a step
whose last click was recorded but whose resume was never enqueued (the bot died in between):
enqueueing is idempotent, so it simply enqueues again. The gate schedules the job when it opens a
step's approvals (`approvals.schedule_expiry`, by the job's path). One worker per deployment runs
RQ's scheduler (`atlas worker --with-scheduler`, the Procfile's `scheduler` process), which moves the
job onto the queue when it is due.
"""

from __future__ import annotations

import logging

from rq import Queue

from workers.approvals import records as approvals
from workers.errors import RunNotFound
from workers.process import runtime
from workers.runs.queueing import enqueue

log = logging.getLogger("atlas.expiry")


def expire_step(run_id: str, step: int) -> int:
    """RQ job: expire what is still undecided, edit those cards, make sure the resume is queued."""
    rt = runtime.current()
    expired, closed = approvals.expire_step(rt.conn, run_id, step)
    if expired:
        log.info("run %s step %s: %d approval(s) expired", run_id, step, len(expired))
        _edit_cards(rt, expired)
    if closed or approvals.step_complete(rt.conn, run_id, step):
        run = rt.store.load(run_id)
        if run.status == "awaiting_approval" and any(
            p.step == step for p in run.pending
        ):  # a triage run has a step per action
            enqueue(
                Queue(rt.settings.queue_name, connection=rt.conn),
                run_id,
                resume=step,
                slack_outage_seconds=rt.settings.slack_outage_seconds,
            )
    return len(expired)


def _edit_cards(rt: runtime.Runtime, expired: list[approvals.Approval]) -> None:
    """Each card is edited on its run's platform (a run that can't be loaded is taken as Slack's)."""
    for approval in expired:
        try:
            kind = rt.store.load(approval.run_id).origin.kind
        except RunNotFound:
            kind = "slack"
        platform = rt.platform_for(kind)
        if platform is not None:
            platform.card_decided(approval)
