"""RQ's scheduler child, saying a Redis loss in one line instead of two tracebacks.

RQ's scheduler process (`rq.scheduler.run`) logs any exception with its full traceback and re-raises it,
and multiprocessing prints it a second time. A Redis outage is not a bug: the scheduler gives up after
its few retries (workers/process/rq_worker.py SCHEDULER_REDIS_RETRIES) and the worker's maintenance starts a
new one once Redis answers, so one warning line says all of it. Anything else keeps RQ's traceback.
"""

from __future__ import annotations

import os
import traceback
from multiprocessing import get_context
from multiprocessing.process import BaseProcess

import redis
from rq.scheduler import RQScheduler

from atlas import stop_signals


class QuietScheduler(RQScheduler):
    """An RQScheduler whose child process reports a lost Redis in one line."""

    def start(self) -> BaseProcess:
        """As RQScheduler.start (a forked child), running `run` instead of RQ's."""
        self._status = self.Status.STARTED
        self._connection = None  # a Redis client can't cross the fork (as RQ does)
        process = get_context("fork").Process(target=run, args=(self,), name="Scheduler")
        self._process = process  # type: ignore[assignment]  # RQ annotates it as None
        process.start()
        return process

    def _install_signal_handlers(self) -> None:
        """RQ's handlers, then the stop signals released: a child forked while the worker held them
        (atlas/stop_signals.py) inherits the mask, and the worker stops its scheduler with a SIGTERM."""
        super()._install_signal_handlers()  # type: ignore[no-untyped-call]  # RQ leaves it unannotated
        stop_signals.release()


def run(scheduler: RQScheduler) -> None:
    """The scheduler child, as `rq.scheduler.run`, except that a Redis failure ends it with one warning."""
    scheduler.log.info("Scheduler for %s started with PID %s", ", ".join(scheduler._queue_names), os.getpid())
    try:
        scheduler.work()
    except redis.RedisError as exc:
        scheduler.log.warning(
            "Scheduler [PID %s] stopped: Redis unreachable (%s: %s); the worker restarts it when Redis is back",
            os.getpid(),
            type(exc).__name__,
            str(exc)[:200],
        )
        return
    except BaseException:
        scheduler.log.error("Scheduler [PID %s] raised an exception.\n%s", os.getpid(), traceback.format_exc())
        raise
    scheduler.log.info("Scheduler with PID %d has stopped", os.getpid())
