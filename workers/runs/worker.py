"""`make_worker`: the worker `atlas worker` runs, one job at a time (workers/runs/atlas_worker.py) or
several at once on threads (workers/runs/threaded_worker.py)."""

from __future__ import annotations

import threading
from typing import Any

from rq import Queue

from workers.runs.atlas_worker import AtlasWorker
from workers.runs.threaded_worker import ThreadedWorker

__all__ = ["AtlasWorker", "ThreadedWorker", "make_worker"]


def make_worker(
    queue: Queue, *, heartbeat_ttl: int = 20, maintenance_seconds: int = 30, name: str | None = None, job_timeout: int = 0,
    concurrency: int = 1, stopping: threading.Event | None = None,
) -> AtlasWorker:
    """One worker serves one queue: RQ does not dequeue atomically across several (rq#1716).

    `job_timeout` is the least time a job gets here (the configured run budget's, workers.runs.queueing.job_timeout):
    the web process that queued it does not know this worker's budget. `concurrency` above 1 works that many
    jobs at once on threads (workers/runs/threaded_worker.py); `stopping` is set when it is asked to stop."""
    options: dict[str, Any] = {
        "connection": queue.connection,
        "name": name,
        # the worker blocks on dequeue for worker_ttl - 15 s, and sweeps for abandoned jobs between dequeues
        "worker_ttl": max(maintenance_seconds, heartbeat_ttl) + 15,
        "maintenance_interval": maintenance_seconds,
        "job_monitoring_interval": max(heartbeat_ttl // 4, 1),
    }
    if concurrency > 1:
        worker: AtlasWorker = ThreadedWorker([queue], concurrency=concurrency, stopping=stopping, **options)
    else:
        worker = AtlasWorker([queue], **options)
    worker.heartbeat_ttl = heartbeat_ttl
    worker.job_timeout_floor = job_timeout
    return worker
