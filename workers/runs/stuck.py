"""Jobs a worker took off the queue and died before it started them: taken back in seconds, not a minute.

RQ moves a dequeued job onto the queue's intermediate list, then registers its execution in the started
registry; a worker killed between the two leaves the job only on that list. RQ's maintenance takes such
a job back (fails it, so its retry queues it again) once it has been seen there for a minute, so the
run waited a minute or more before anyone worked on it: the chaos check (bench/chaos.py) met it with
every SIGKILL of a worker taking jobs. A live worker registers a job within milliseconds of dequeuing it
(even through a Redis outage: it cannot be swept while Redis is down), so a job still unregistered after
the worker heartbeat TTL was dequeued by a dead worker, and it is taken back then.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from rq import Queue
from rq.intermediate_queue import IntermediateQueue
from rq.utils import now


class QuickIntermediateQueue(IntermediateQueue):
    """RQ's intermediate list whose stuck jobs are taken back after `stuck_seconds` instead of a minute."""

    def __init__(self, queue: Queue, stuck_seconds: float) -> None:
        super().__init__(queue.key, queue.connection)
        self.stuck_seconds = stuck_seconds

    def should_be_cleaned_up(self, job_id: str) -> bool:
        """Seen on the list, unregistered, longer than `stuck_seconds` ago (RQ: a minute)."""
        first_seen = self.get_first_seen(job_id)
        return first_seen is not None and now() - first_seen > timedelta(seconds=self.stuck_seconds)


def take_back(worker: Any, stuck_seconds: float) -> None:
    """For each of `worker`'s queues, under RQ's maintenance lock (one sweeper at a time, as RQ's own):
    fail, and so retry, every job dequeued by a worker that died before starting it."""
    for queue in worker.queues:
        if queue.acquire_maintenance_lock():
            try:
                QuickIntermediateQueue(queue, stuck_seconds).cleanup(worker, queue)
            finally:
                queue.release_maintenance_lock()
