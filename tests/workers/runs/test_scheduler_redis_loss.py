"""A Redis loss costs the scheduler's log one line, not a traceback (issue 22, item 26).

RQ's scheduler child logs any exception with its traceback and re-raises it (multiprocessing prints it
again); for an outage the worker simply restarts the scheduler later, so one line says it all. The
scheduler here is forked as a worker forks it and its Redis is gone; its stderr is read at the fd.
"""

from __future__ import annotations

import logging
import socket
import sys
import uuid

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq import Queue

from workers.process.rq_worker import make_worker
from workers.runs.scheduler import QuietScheduler


def _dead_redis() -> redis.Redis:
    """A client of a port nothing listens on (a Redis that was killed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))


def test_a_lost_redis_ends_the_scheduler_child_with_one_line(capfd: pytest.CaptureFixture[str]) -> None:
    scheduler = QuietScheduler([f"atlas-{uuid.uuid4().hex[:8]}"], connection=_dead_redis(), logging_level="WARNING")
    handler = logging.StreamHandler(sys.stderr)  # the child's log, as `atlas worker` writes it: to stderr
    logging.getLogger("rq.scheduler").addHandler(handler)
    try:
        process = scheduler.start()
        process.join(timeout=20)
    finally:
        logging.getLogger("rq.scheduler").removeHandler(handler)
    assert process.exitcode == 0  # stopped, not crashed: the worker's maintenance starts a new one
    err = capfd.readouterr().err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Redis unreachable" in lines[0], err


def test_the_worker_runs_that_scheduler(redis_conn: redis.Redis) -> None:
    worker = make_worker(Queue(f"atlas-{uuid.uuid4().hex[:8]}", connection=redis_conn))
    worker._start_scheduler(burst=True)  # burst: it enqueues what is due and releases its lock, no child
    assert isinstance(worker.scheduler, QuietScheduler)
