"""`atlas worker`: build the runtime once, then serve the Atlas queue."""

from __future__ import annotations

import logging
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq import Queue, Worker
from rq.command import send_shutdown_command

from atlas.channel_plan import longest_seconds
from atlas.connection import connect
from atlas.settings import Settings
from atlas.stop_signals import held
from workers.process import runtime, warmup
from workers.process.rq_worker import make_worker
from workers.runs import run_log
from workers.runs.queueing import job_timeout

log = logging.getLogger("atlas.worker")
START_CHECK_SECONDS = 3.0  # how long a starting worker waits for Redis to answer before it gives up
STOP_WAIT_SECONDS = 15.0  # how long `atlas redis stop` lets the workers it stops finish their jobs


def serve(
    settings: Settings,
    *,
    burst: bool = False,
    max_idle: int | None = None,
    name: str | None = None,
    with_scheduler: bool = False,
) -> int:
    """Serve the queue; `with_scheduler` also runs RQ's scheduler child (58 MiB, a few Redis commands a
    second even when idle), which moves due jobs (approval expiry, GitHub backstop syncs) onto the
    queue. One per deployment is enough: RQ lets one scheduler per queue hold the lock anyway."""
    logging.getLogger("rq.worker").setLevel(logging.WARNING)
    reachable(settings)
    with held():  # every thread started from here on leaves SIGTERM and SIGINT to the main thread (stop_signals.py)
        return _serve(settings, burst=burst, max_idle=max_idle, name=name, with_scheduler=with_scheduler)


def _serve(settings: Settings, *, burst: bool, max_idle: int | None, name: str | None, with_scheduler: bool) -> int:
    """`serve` once Redis answered, with the stop signals held until RQ's handlers are in (AtlasWorker)."""
    rt = runtime.build(settings)
    runtime.install(rt)
    warmup.warm(rt)  # what the first run would wait on, done before the worker takes a job
    # what this worker answers with; runs taken under other settings are refused (workers/settings_check.py)
    log.setLevel(logging.INFO)
    run_log.install()  # a worker works many runs at once: each line names its run's job
    log.info(
        "serving queue %s with settings %s (model %s, data %s)",
        settings.queue_name,
        settings.fingerprint,
        settings.answering_model,
        settings.data_dir,
    )
    worker = make_worker(
        Queue(settings.queue_name, connection=rt.conn),
        heartbeat_ttl=settings.worker_heartbeat_ttl,
        maintenance_seconds=settings.worker_maintenance_seconds,
        name=name,
        job_timeout=job_timeout(longest_seconds(settings), settings.slack_outage_seconds),  # a channel's own too
        concurrency=settings.worker_concurrency,
        stopping=rt.stopping,  # runs in flight read it between steps: save, release, hand over
        audit_retention_days=settings.audit_retention_days,
    )
    for repo in settings.repos:  # the backstop for webhooks GitHub never redelivers, per repository
        from workers.jobs.github import schedule

        one = settings.for_repo(repo)
        assert one.github is not None
        schedule(rt.conn, worker.queues[0], one.github)
        if settings.triage.enabled:  # the inbox is on: the history before now never gets a card (catch_up.py)
            from workers.new_issues import catch_up

            catch_up.enable(rt.conn, repo, one.data_dir)
    try:
        worker.work(burst=burst, max_idle_time=max_idle, with_scheduler=with_scheduler, logging_level="WARNING")
    except redis.RedisError as exc:  # only after a stop request: until then every Redis call waits for Redis
        log.warning("worker stopped while Redis was unreachable (%s)", type(exc).__name__)
        return 1
    return 0


def reachable(settings: Settings) -> None:
    """At start, one bounded PING (no retries): a worker that never reached Redis says so in one line and
    exits 1 (raising redis.ConnectionError). Riding out an outage, retrying until Redis returns, is for
    a worker that was serving (atlas/connection.py's `worker_connection`)."""
    check = connect(settings, socket_timeout=START_CHECK_SECONDS, connect_timeout=START_CHECK_SECONDS)
    check.set_retry(Retry(NoBackoff(), 0))
    try:
        check.ping()
    finally:
        check.close()


def stop_all(conn: redis.Redis, wait: float = STOP_WAIT_SECONDS) -> int:
    """Ask every worker registered on `conn` to stop, with RQ's shutdown command (a warm stop: a job in
    hand finishes first), and wait up to `wait` seconds for them to leave; how many were asked.

    A worker rides a Redis outage by retrying until Redis returns, so a worker whose server is shut
    down on purpose would otherwise outlive its idle limit, retrying forever."""
    names = [w.name for w in Worker.all(connection=conn)]
    for name in names:
        send_shutdown_command(conn, name)
    deadline = time.monotonic() + wait
    while names and time.monotonic() < deadline and {w.name for w in Worker.all(connection=conn)} & set(names):
        time.sleep(0.1)  # a worker leaves the registry as it stops (its own key lingers a minute: not a sign)
    return len(names)
