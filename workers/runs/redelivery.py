"""Re-delivering what a chat platform did not take: a job scheduled for later, not a sleep in a slot.

An outage of Slack lasts minutes. A job that waited it out held one of its worker's slots the whole time
(`atlas worker --concurrency N`), so a few outages could stall a worker that has other runs to answer.
Instead the answer (or the approval cards) stays in the run record, and `continue_run(run_id)` is
scheduled with RQ's `enqueue_in` under its own job id per attempt: a run that is final, or paused with
cards to post, re-sends only what its platform has not taken (bot/slack/surface.py), never twice. The
scheduled job lives in Redis, so a killed worker loses nothing. RQ's scheduler (`atlas worker
--with-scheduler`, one per deployment, as approval expiry needs) moves it onto the queue when due; with
no scheduler holding the queue's lock the platform waits in the slot as before rather than never.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import timedelta

import redis
from rq import Callback, Queue
from rq.exceptions import DuplicateJobError
from rq.scheduler import RQScheduler

from workers.runs.job_names import CONTINUE_RUN, ON_JOB_FAILURE
from workers.runs.queueing import FAILURE_TTL_SECONDS, JOB_TIMEOUT_SECONDS, RESULT_TTL_SECONDS, RETRY

log = logging.getLogger("atlas.redelivery")

# A scheduled re-delivery that no scheduler moved in this long past its time has nothing left to do:
# the outage budget (ATLAS_SLACK_OUTAGE_SECONDS) was spent long before.
LATE_TTL_SECONDS = 24 * 3600
FIRST_WAIT_SECONDS = 0.5
LEAST_DELAY_SECONDS = 1.0  # RQ's scheduler looks once a second: a shorter delay is no sooner (the jitter comes on top)


def jittered(attempt: int, cap_seconds: float, first_wait: float = FIRST_WAIT_SECONDS) -> float:
    """Full jitter over an exponential ceiling: tries from many workers spread out after an outage."""
    return random.uniform(0, min(cap_seconds, first_wait * 2**attempt))


def delay(attempt: int, cap_seconds: float, left: float, first_wait: float = FIRST_WAIT_SECONDS) -> float:
    """How long until scheduled re-delivery `attempt`: jittered, at least the scheduler's tick, within the `left`
    seconds of the outage budget (an answer's, its cards' or a filing's note alike)."""
    return min(LEAST_DELAY_SECONDS + jittered(attempt, cap_seconds, first_wait), left)


def job_id(run_id: str, attempt: int, what: str = "deliver") -> str:
    """One job id per run, what is re-delivered and attempt: a retried job scheduling the same attempt is refused."""
    return f"atlas-run-{run_id}-{what}-{attempt}"


@dataclass(frozen=True)
class Redelivery:
    """Schedules `continue_run(run_id)` on `queue_name` for later: what a platform's delivery hands an
    outage to instead of sleeping."""

    conn: redis.Redis
    queue_name: str

    def available(self) -> bool:
        """A scheduler holds this queue's lock (RQ refreshes it every second, 61 s TTL), so a scheduled job
        will be moved onto the queue. One EXISTS; a Redis error counts as no."""
        try:
            return bool(self.conn.exists(RQScheduler.get_locking_key(self.queue_name)))
        except redis.RedisError:
            return False

    def schedule(self, run_id: str, attempt: int, delay_seconds: float, what: str = "deliver") -> bool:
        """`continue_run(run_id)` in `delay_seconds`; False if this attempt was already scheduled. `what` keeps the
        attempts of one thing apart from another's (an answer's or cards' "deliver", a filing's "note")."""
        try:
            Queue(self.queue_name, connection=self.conn).enqueue_in(
                timedelta(seconds=delay_seconds),
                CONTINUE_RUN,
                run_id,
                job_id=job_id(run_id, attempt, what),
                unique=True,
                job_timeout=JOB_TIMEOUT_SECONDS,
                result_ttl=RESULT_TTL_SECONDS,
                failure_ttl=FAILURE_TTL_SECONDS,
                ttl=int(delay_seconds) + LATE_TTL_SECONDS,
                retry=RETRY,
                on_failure=Callback(ON_JOB_FAILURE),
                description=f"atlas run {run_id} re-delivery {attempt} ({what})",
            )
        except DuplicateJobError:
            return False
        log.info("run %s: re-delivery %d (%s) scheduled in %.1fs", run_id, attempt, what, delay_seconds)
        return True
