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

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.retry import Retry
from rq import Queue
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.exceptions import StopRequested
from rq.job import Job
from rq.worker import SimpleWorker

from atlas import stop_signals
from workers.approvals import audit
from workers.console_data import index_filing
from workers.process.rq_job import AtlasJob
from workers.process.threaded_worker import Threaded, beat_all
from workers.runs import run_log
from workers.runs.scheduler import QuietScheduler
from workers.runs.stuck import take_back

log = logging.getLogger("atlas.worker")

SCHEDULER_REDIS_RETRIES = 5  # a few seconds of reconnecting, then the scheduler child exits and is restarted


class AtlasWorker(SimpleWorker):
    """A SimpleWorker whose running job keeps a short, refreshed lease in the started registry."""

    heartbeat_ttl: int = 20
    job_timeout_floor: int = 0  # this worker's run budget may need more than the time a job was queued with
    audit_retention_days: int = 0  # ATLAS_AUDIT_RETENTION_DAYS: maintenance trims the audit log to it (0: never)

    def run_maintenance_tasks(self) -> None:
        """RQ's sweep (registries, the scheduler), jobs a dead worker dequeued but never started taken back
        after a heartbeat TTL (workers/runs/stuck.py; RQ waits a minute), then the audit log's retention:
        every worker trims, so the log stays bounded whichever processes run; a trim with nothing old is one
        cheap XTRIM. Then the console's pending filings (workers/console_data/index_filing.py)."""
        super().run_maintenance_tasks()  # type: ignore[no-untyped-call]  # RQ leaves it unannotated
        take_back(self, self.heartbeat_ttl)
        audit.trim(self.connection, self.audit_retention_days)
        index_filing.flush(self.connection)  # filings whose process died before its timer filed them

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
        try:
            super().request_stop(signum, frame)  # type: ignore[no-untyped-call]  # RQ leaves it unannotated
        except redis.RedisError as exc:  # its note in Redis failed: RQ's dequeue would catch that and reconnect forever
            log.warning("stop requested while Redis is unreachable (%s): stopping anyway", type(exc).__name__)
            self._stop_requested = True
            raise StopRequested from exc

    def _install_signal_handlers(self) -> None:
        """RQ's handlers, then the stop signals released in the main thread, the one left to take them: `serve`
        held them while the worker started, so every thread started meanwhile (RQ's pubsub listener, the pools)
        blocks them (atlas/stop_signals.py). One that came meanwhile is a stop requested before the first job."""
        super()._install_signal_handlers()  # type: ignore[no-untyped-call]  # RQ leaves it unannotated
        try:
            stop_signals.release()
        except StopRequested:  # RQ's handler, idle: the work loop checks the flag before it dequeues
            self._stop_requested = True

    def subscribe(self) -> None:
        """RQ's listener for its commands, on a thread that leaves the stop signals to the main thread."""
        with stop_signals.held():
            super().subscribe()  # type: ignore[no-untyped-call]  # RQ leaves it unannotated

    def _start_scheduler(self, *args: Any, **kwargs: Any) -> None:
        """RQ's scheduler runs in a child process built from this connection's settings; it gets a
        finite retry instead of ours, so a stop (or a long outage) ends it; worker maintenance restarts it."""
        pool_kwargs = self.connection.connection_pool.connection_kwargs
        forever = pool_kwargs.get("retry")
        pool_kwargs["retry"] = Retry(ExponentialWithJitterBackoff(cap=1.0, base=0.05), SCHEDULER_REDIS_RETRIES)
        try:
            self._start_quiet_scheduler(*args, **kwargs)
        finally:
            pool_kwargs["retry"] = forever

    def _start_quiet_scheduler(
        self,
        burst: bool = False,
        logging_level: str | None = "INFO",
        date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
        log_format: str = DEFAULT_LOGGING_FORMAT,
    ) -> None:
        """RQ's `Worker._start_scheduler` with our scheduler class (a lost Redis: one log line, no traceback)."""
        self.scheduler = QuietScheduler(
            self.queues,
            connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            date_format=date_format,
            log_format=log_format,
            serializer=self.serializer,
        )
        self.scheduler.acquire_locks()
        if not self.scheduler.acquired_locks:
            return
        if not burst:
            self.scheduler.start()
            return
        try:
            self.scheduler.register_birth()
            self.scheduler.enqueue_scheduled_jobs()
        finally:
            self.scheduler.release_locks()
            self.scheduler.register_death()

    def execute_job(self, job: Job, queue: Queue) -> None:
        if job.timeout != -1 and (job.timeout or 0) < self.job_timeout_floor:
            job.timeout = self.job_timeout_floor  # a run under this worker's budget may take that long
        stop = threading.Event()
        beat = threading.Thread(target=self._beat, args=(job, stop), name="atlas-heartbeat", daemon=True)
        with stop_signals.held():
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
                beat_all(self)
            except Exception:  # a missed beat is retried; never kill the job over it
                log.warning("heartbeat for job %s failed", job.id, exc_info=True)


class ThreadedWorker(Threaded, AtlasWorker):
    """An AtlasWorker working up to `concurrency` jobs at once, on threads (workers/process/threaded_worker.py)."""


def make_worker(
    queue: Queue,
    *,
    heartbeat_ttl: int = 20,
    maintenance_seconds: int = 30,
    name: str | None = None,
    job_timeout: int = 0,
    concurrency: int = 1,
    stopping: threading.Event | None = None,
    audit_retention_days: int = 0,
) -> AtlasWorker:
    """One worker serves one queue: RQ does not dequeue atomically across several (rq#1716).

    `job_timeout` is the least time a job gets here (the configured run budget's, workers.runs.queueing.job_timeout):
    the web process that queued it does not know this worker's budget. `concurrency` above 1 works that many
    jobs at once on threads; `stopping` is set when such a worker is asked to stop; `audit_retention_days`: the
    audit log's retention its maintenance keeps (0: it trims nothing)."""
    options: dict[str, Any] = {
        "connection": queue.connection,
        "name": name,
        # the worker blocks on dequeue for worker_ttl - 15 s, and sweeps for abandoned jobs between dequeues
        "worker_ttl": max(maintenance_seconds, heartbeat_ttl) + 15,
        "maintenance_interval": maintenance_seconds,
        "job_monitoring_interval": max(heartbeat_ttl // 4, 1),
        "job_class": AtlasJob,  # jobs queued under an earlier release's names still run
    }
    worker = (
        ThreadedWorker([queue], concurrency=concurrency, stopping=stopping, **options)
        if concurrency > 1
        else AtlasWorker([queue], **options)
    )
    worker.heartbeat_ttl = heartbeat_ttl
    worker.job_timeout_floor = job_timeout
    worker.audit_retention_days = audit_retention_days
    return worker
