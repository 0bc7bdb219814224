"""The worker process: RQ's SimpleWorker, keeping its job alive with a heartbeat thread.

Why SimpleWorker: RQ's default Worker starts a fresh interpreter per job, which would re-import
openai and re-load the tokenizer ranks and search indexes every time (about a second per run).
SimpleWorker runs jobs in the worker process, so they are loaded once. Its weakness is that it
does not heartbeat while a job runs, so a job killed with its worker stays "started" until
timeout + 60 s. AtlasWorker adds a heartbeat thread with a short TTL and runs maintenance often,
so a run whose worker died is found abandoned and retried by another worker within about a minute
(heartbeat TTL 20 s + maintenance every 30 s by default).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from redis.backoff import ExponentialWithJitterBackoff
from redis.retry import Retry
from rq import Queue
from rq.job import Job
from rq.utils import now
from rq.worker import SimpleWorker

from workers.runs import run_log

log = logging.getLogger("atlas.worker")

SCHEDULER_REDIS_RETRIES = 5  # a few seconds of reconnecting, then the scheduler child exits and is restarted


class AtlasWorker(SimpleWorker):
    """A SimpleWorker whose running job keeps a short, refreshed lease in the started registry."""

    heartbeat_ttl: int = 20
    job_timeout_floor: int = 0  # this worker's run budget may need more than the time a job was queued with

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        return self.heartbeat_ttl

    def request_stop(self, signum: int, frame: object) -> None:
        """A stop request also ends waiting for Redis: the worker's connection retries forever through an
        outage (atlas.connection.worker_connection), and a worker asked to stop must stop even then."""
        from atlas.connection import stop_waiting

        stop_waiting(self.connection)
        pubsub = getattr(self, "pubsub", None)
        if pubsub is not None and pubsub.connection is not None:
            pubsub.connection.retry.update_retries(0)
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]  # RQ leaves it unannotated

    def _start_scheduler(self, *args: Any, **kwargs: Any) -> None:
        """RQ's scheduler runs in a child process built from this connection's settings; it gets a
        finite retry instead of ours, so a stop (or a long outage) ends it; worker maintenance restarts it."""
        pool_kwargs = self.connection.connection_pool.connection_kwargs
        forever = pool_kwargs.get("retry")
        pool_kwargs["retry"] = Retry(ExponentialWithJitterBackoff(cap=1.0, base=0.05), SCHEDULER_REDIS_RETRIES)
        try:
            super()._start_scheduler(*args, **kwargs)
        finally:
            pool_kwargs["retry"] = forever

    def execute_job(self, job: Job, queue: Queue) -> None:
        if job.timeout != -1 and (job.timeout or 0) < self.job_timeout_floor:
            job.timeout = self.job_timeout_floor  # a run under this worker's budget may take that long
        stop = threading.Event()
        beat = threading.Thread(target=self._beat, args=(job, stop), name="atlas-heartbeat", daemon=True)
        beat.start()
        try:
            with run_log.working(job.id):
                super().execute_job(job, queue)
        finally:
            stop.set()
            beat.join(timeout=2)

    def _beat(self, job: Job, stop: threading.Event) -> None:
        while not stop.wait(self.job_monitoring_interval):
            try:
                self.beat_all()
            except Exception:  # a missed beat is retried; never kill the job over it
                log.warning("heartbeat for job %s failed", job.id, exc_info=True)

    def beat_all(self) -> None:
        """Heartbeat the worker and every execution it holds, in one round trip: RQ's `maintain_heartbeats`
        takes two per execution, and a threaded worker holds many."""
        executions = [e for e in list(self.executions.values()) if e._job is not None]
        if not executions:
            return
        worker_ttl = self.job_monitoring_interval + 60
        with self.connection.pipeline() as pipeline:
            self.heartbeat(worker_ttl, pipeline=pipeline)
            job_beats = []
            for execution in executions:
                job = execution._job
                assert job is not None
                ttl = int(self.get_heartbeat_ttl(job))
                execution.heartbeat(job.started_job_registry, ttl, pipeline=pipeline)
                job_beats.append((len(pipeline), job))
                job.heartbeat(now(), ttl, pipeline=pipeline, xx=True)
            results = pipeline.execute()
            # as in RQ's maintain_heartbeats: a beat that created a job's hash came after the job was deleted
            # (result_ttl=0), and a worker hash re-created by the beat needs its fields and a TTL back
            for index, job in job_beats:
                if results[index] == 1:
                    pipeline.delete(job.key)
            if results[0] == 1:
                pipeline.hset(self.key, mapping=self.serialize())
                pipeline.expire(self.key, worker_ttl)
            if len(pipeline):
                pipeline.execute()
