"""`atlas worker`: build the runtime once, then serve the Atlas queue."""

from __future__ import annotations

import logging

import redis

from rq import Queue

from atlas.settings import Settings
from workers import runtime
from workers.worker import make_worker

log = logging.getLogger("atlas.worker")


def serve(settings: Settings, *, burst: bool = False, max_idle: int | None = None, name: str | None = None) -> int:
    logging.getLogger("rq.worker").setLevel(logging.WARNING)
    rt = runtime.build(settings)
    runtime.install(rt)
    worker = make_worker(
        Queue(settings.queue_name, connection=rt.conn),
        heartbeat_ttl=settings.worker_heartbeat_ttl,
        maintenance_seconds=settings.worker_maintenance_seconds,
        name=name,
    )
    try:
        worker.work(burst=burst, max_idle_time=max_idle, with_scheduler=True, logging_level="WARNING")
    except redis.RedisError as exc:  # only after a stop request: until then every Redis call waits for Redis
        log.warning("worker stopped while Redis was unreachable (%s)", type(exc).__name__)
        return 1
    return 0
