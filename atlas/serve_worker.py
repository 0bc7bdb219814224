"""`atlas worker`: build the runtime once, then serve the Atlas queue."""

from __future__ import annotations

import logging

from rq import Queue

from atlas.settings import Settings
from workers import runtime
from workers.worker import make_worker


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
    if settings.github is not None:  # the backstop for webhooks GitHub never redelivers
        from workers.github_jobs import schedule

        schedule(rt.conn, worker.queues[0], settings.github)
    worker.work(burst=burst, max_idle_time=max_idle, with_scheduler=True, logging_level="WARNING")
    return 0
