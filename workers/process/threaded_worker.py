"""Working up to N jobs at once, on threads of one process (`atlas worker --concurrency N`).

A run spends nearly all its life waiting for the model, and a worker process costs ~250 MiB (the
embedding model, indexes, tokenizer, interpreter) while a run's state is a few tens of KiB, so one
process holds many runs and shares all of that. RQ has no concurrent worker (rq#1804); this one stays
an RQ worker in every way RQ can see: it registers, heartbeats every execution, and each job goes
through RQ's own `perform_job` (started registry, results, retries, failure callbacks). What changes:

- The main thread dequeues only when a slot is free, so the worker never holds more jobs than N.
- A job runs on its own daemon thread. RQ's job timeout is SIGALRM, which only reaches the main thread,
  so it is off here (`NoDeathPenalty`): a run's own budget, the model client's timeout and the tools'
  timeouts bound it instead.
- A stop (SIGTERM, SIGINT, RQ's shutdown command) sets `stopping`: each run finishes the step it is in,
  is saved, releases its lease and asks RQ to queue its job again (`workers.jobs.runs.continue_run`),
  so another worker continues it. A second signal is RQ's cold stop; a SIGKILL loses nothing either:
  the heartbeats stop, and maintenance elsewhere retries every abandoned job.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from rq import Queue
from rq.exceptions import StopRequested
from rq.job import Job
from rq.timeouts import BaseDeathPenalty
from rq.utils import now
from rq.worker import SimpleWorker, WorkerStatus

from atlas import stop_signals
from workers.runs import run_log

log = logging.getLogger("atlas.worker")

DRAIN_POLL_SECONDS = 0.05


class NoDeathPenalty(BaseDeathPenalty):
    """RQ's job timeout, off: SIGALRM cannot interrupt a thread (the run's budget stops it instead)."""

    def setup_death_penalty(self) -> None:
        pass

    def cancel_death_penalty(self) -> None:
        pass


class Threaded(SimpleWorker):
    """What makes a SimpleWorker work up to `concurrency` jobs at once, each on its own thread; mixed into
    AtlasWorker (workers/process/rq_worker.py `ThreadedWorker`), whose heartbeat TTL and stop handling it keeps."""

    death_penalty_class = NoDeathPenalty
    job_timeout_floor: int = 0  # AtlasWorker's: the least time a job gets here

    def __init__(
        self, *args: Any, concurrency: int = 2, stopping: threading.Event | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.concurrency = concurrency
        self.stopping = stopping or threading.Event()  # runs read it between steps
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()  # executions and the worker's state change together
        self._interruptible = False  # the main thread waits (for a slot or a job): a stop may end the wait at once
        self._beater: threading.Thread | None = None

    # -- taking jobs ---------------------------------------------------------------------------------
    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """Wait for a free slot, then for a job. Idle time counts only while no job is in flight."""
        self._wait_for_slot()
        try:
            while True:
                self._interruptible = True
                try:
                    result = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
                finally:
                    self._interruptible = False
                if result is None and self.executions and not self._stop_requested:
                    # "idle" (and a burst's "done") means no job in flight, not merely an empty queue
                    if timeout is None:
                        time.sleep(DRAIN_POLL_SECONDS)
                    continue
                break
        except BaseException:
            self._slots.release()
            raise
        if result is None:
            self._slots.release()
        return result

    def _wait_for_slot(self) -> None:
        """Block until fewer than `concurrency` jobs are in flight, keeping the worker alive and swept."""
        self._interruptible = True
        try:
            while not self._slots.acquire(timeout=self.job_monitoring_interval):
                if self._stop_requested:
                    raise StopRequested
                if self.should_run_maintenance_tasks:
                    self.run_maintenance_tasks()  # type: ignore[no-untyped-call]  # RQ: unannotated; a saturated worker still sweeps
        finally:
            self._interruptible = False
        if self._stop_requested:
            self._slots.release()
            raise StopRequested

    def set_state(self, state: str, pipeline: Any = None) -> None:
        """`rq info` shows the worker busy while any job is in flight, even as it listens for more."""
        if state == WorkerStatus.IDLE and self.executions:
            state = WorkerStatus.BUSY
        super().set_state(state, pipeline=pipeline)

    # -- working them --------------------------------------------------------------------------------
    def execute_job(self, job: Job, queue: Queue) -> None:
        """Register the execution in RQ (on this thread, before the next dequeue) and run it on its own."""
        if job.timeout != -1 and (job.timeout or 0) < self.job_timeout_floor:
            job.timeout = self.job_timeout_floor
        try:
            with self._lock:
                execution = self.prepare_execution(job)
            self._start_beating()
            thread = threading.Thread(
                target=self._perform, args=(job, queue, execution), name=f"atlas-job-{job.id}", daemon=True
            )
            with stop_signals.held():  # the run's thread, and those it starts, leave them to the main thread
                thread.start()
        except BaseException:
            self._slots.release()  # the slot taken for this job; RQ's maintenance recovers the job itself
            raise

    def _perform(self, job: Job, queue: Queue, execution: Any) -> None:
        try:
            with run_log.working(job.id):
                self.perform_job(job, queue, execution)
        except Exception:  # perform_job records failures itself; this is RQ's own bookkeeping failing
            log.exception("job %s: the worker could not record its end", job.id)
        finally:
            with self._lock:
                self.executions.pop(execution.id, None)
                if not self.executions:
                    try:
                        self.set_state(WorkerStatus.IDLE)
                    except Exception:
                        pass  # the next dequeue sets it again
            self._slots.release()

    def _start_beating(self) -> None:
        if self._beater is None or not self._beater.is_alive():
            self._beater = threading.Thread(target=self._beat_forever, name="atlas-heartbeat", daemon=True)
            with stop_signals.held():
                self._beater.start()

    def _beat_forever(self) -> None:
        while True:
            time.sleep(self.job_monitoring_interval)
            try:
                beat_all(self)
            except Exception:  # a missed beat is retried; never end the worker over it
                log.warning("heartbeat failed", exc_info=True)

    # -- stopping ------------------------------------------------------------------------------------
    def _shutdown(self) -> None:
        """A warm stop: runs in flight finish their step and hand over; waiting for a slot or a job ends now."""
        self._stop_requested = True
        self.stopping.set()
        self.set_shutdown_requested_date()  # type: ignore[no-untyped-call]  # RQ: unannotated
        if self.scheduler:
            self.stop_scheduler()  # type: ignore[no-untyped-call]  # RQ: unannotated
        if self._interruptible:
            raise StopRequested

    def teardown(self) -> None:
        """Before RQ deregisters the worker: wait for every job in flight to end (each hands over after its step)."""
        if self.executions and self._stop_requested:
            log.info("waiting for %d run(s) in flight to save and hand over", len(self.executions))
        while self.executions:
            time.sleep(DRAIN_POLL_SECONDS)
        super().teardown()  # type: ignore[no-untyped-call]  # RQ: unannotated


def beat_all(worker: SimpleWorker) -> None:
    """Heartbeat the worker and every execution it holds, in one round trip: RQ's `maintain_heartbeats`
    takes two per execution, and a threaded worker holds many."""
    executions = [e for e in list(worker.executions.values()) if e._job is not None]
    if not executions:
        return
    worker_ttl = worker.job_monitoring_interval + 60
    with worker.connection.pipeline() as pipeline:
        worker.heartbeat(worker_ttl, pipeline=pipeline)
        job_beats = []
        for execution in executions:
            job = execution._job
            assert job is not None
            ttl = int(worker.get_heartbeat_ttl(job))
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
            pipeline.hset(worker.key, mapping=worker.serialize())
            pipeline.expire(worker.key, worker_ttl)
        if len(pipeline):
            pipeline.execute()


__all__ = ["NoDeathPenalty", "Threaded", "beat_all"]
