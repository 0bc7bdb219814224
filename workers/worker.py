"""The worker process: RQ's SimpleWorker, keeping its job alive with a heartbeat thread.

Why SimpleWorker: RQ's default Worker spawns a fresh interpreter per job, which would re-import
openai and re-load the tokenizer ranks and search indexes every time (about a second per run).
SimpleWorker runs jobs in the worker process, so they are loaded once. Its weakness is that it
does not heartbeat while a job runs, so a job killed with its worker stays "started" until
timeout + 60 s. AtlasWorker adds a heartbeat thread with a short TTL and runs maintenance often,
so a run whose worker died is found abandoned and retried by another worker within about a minute.
"""

from __future__ import annotations

import logging
import threading

from rq import Queue
from rq.job import Job
from rq.worker import SimpleWorker

HEARTBEAT_SECONDS = 5
HEARTBEAT_TTL = 20  # a started job whose worker stopped heartbeating is abandoned after this
MAINTENANCE_SECONDS = 30  # how often some worker sweeps registries for abandoned jobs
WORKER_TTL = 35

log = logging.getLogger("atlas.worker")


class AtlasWorker(SimpleWorker):
    """A SimpleWorker whose running job keeps a short, refreshed lease in the started registry."""

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        return HEARTBEAT_TTL

    def execute_job(self, job: Job, queue: Queue) -> None:
        stop = threading.Event()
        beat = threading.Thread(target=self._beat, args=(job, stop), name="atlas-heartbeat", daemon=True)
        beat.start()
        try:
            super().execute_job(job, queue)
        finally:
            stop.set()
            beat.join(timeout=2)

    def _beat(self, job: Job, stop: threading.Event) -> None:
        while not stop.wait(HEARTBEAT_SECONDS):
            execution = self.executions.get(next(iter(self.executions), ""), None) if self.executions else None
            if execution is None:
                continue
            try:
                self.maintain_heartbeats(job, execution)
            except Exception:  # a missed beat is retried; never kill the job over it
                log.warning("heartbeat for job %s failed", job.id, exc_info=True)


def make_worker(queue: Queue, name: str | None = None) -> AtlasWorker:
    """One worker serves one queue: RQ does not dequeue atomically across several (rq#1716)."""
    return AtlasWorker(
        [queue],
        connection=queue.connection,
        name=name,
        worker_ttl=WORKER_TTL,
        maintenance_interval=MAINTENANCE_SECONDS,
        job_monitoring_interval=HEARTBEAT_SECONDS,
    )
