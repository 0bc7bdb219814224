"""A SIGTERM starts an idle `atlas worker`'s warm stop at once, whichever of its threads the kernel hands it to
(atlas/stop_signals.py). The kernel delivers a signal sent to the process to any thread that does not block it,
and CPython runs the handler only in the main thread: one landing elsewhere waited for RQ's dequeue (BLMOVE,
30 s here) to return, past a platform's grace period. This test hands the signal to each thread that could
take it (tgkill, as the kernel would), so the race is played every time instead of once in a few stops."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
import uuid
from errno import ESRCH
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Worker

from atlas import embedded_redis
from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import call_outputs
from tests.standins.turns import Turn, reply_calls, reply_text
from tests.support.processes import wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.runs.queueing import submit
from workers.runs.store import RunStore

STOP_WITHIN_SECONDS = 5.0  # the dequeue below blocks for 30 s: a stop within this started at once
SYS_TGKILL = 234  # x86-64; the test is skipped elsewhere


def _answer(request: dict[str, Any]) -> Turn:
    if not call_outputs(request):
        return reply_calls([("search_docs", {"query": "retries", "k": 3})])  # the tool pool's threads start
    return reply_text("done")


def _threads(pid: int) -> dict[int, frozenset[int]]:
    """Each thread of `pid` other than its main one, with the signals it blocks (from /proc)."""
    blocked: dict[int, frozenset[int]] = {}
    for tid in map(int, os.listdir(f"/proc/{pid}/task")):
        if tid == pid:
            continue
        try:  # a short-lived thread (a pool's, a connection's) may end between the listing and this read
            status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except FileNotFoundError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines())
        mask = int(fields["SigBlk"], 16)
        blocked[tid] = frozenset(n for n in range(1, 65) if mask & (1 << (n - 1)))
    return blocked


def _tgkill(pid: int, tid: int, signum: int) -> bool:
    """Whether the signal was sent: False when the thread has ended since it was listed."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(SYS_TGKILL, pid, tid, signum) == 0:
        return True
    errno = ctypes.get_errno()
    assert errno == ESRCH, os.strerror(errno)
    return False


def _registered(conn: redis.Redis, name: str) -> bool:
    return any(w.name == name for w in Worker.all(connection=conn))


def _registered_scheduler(conn: redis.Redis) -> bool:
    return any(conn.scan_iter("rq:scheduler-lock:*"))


def _waiting_on_queue(conn: redis.Redis) -> bool:
    return any("b" in c.get("flags", "") and c.get("cmd") in {"blmove", "blpop"} for c in conn.client_list())


@pytest.mark.skipif(os.uname().machine != "x86_64" or not Path("/proc/self/task").is_dir(), reason="tgkill on Linux")
@pytest.mark.parametrize(
    ("concurrency", "extra"),
    [
        pytest.param("4", (), id="threaded"),
        pytest.param("1", (), id="jobs-on-the-main-thread"),
        pytest.param("4", ("--with-scheduler",), id="with-the-scheduler-child"),
    ],
)
def test_a_sigterm_to_any_thread_of_an_idle_worker_starts_its_warm_stop_at_once(
    tmp_path: Path, redis_url: str, concurrency: str, extra: tuple[str, ...]
) -> None:
    """Also with RQ's scheduler child, forked while the worker held the signals: it takes the SIGTERM the
    worker stops it with, or the worker would wait on it forever."""
    make_dataset(tmp_path / "data")
    conn = redis.Redis.from_url(redis_url)
    name = f"w-stop-{concurrency}"
    with ScriptedModel(fallback=_answer) as model:
        env = {
            "ATLAS_HOME": str(tmp_path / "home"),
            "REDIS_URL": redis_url,
            "ATLAS_DATA": str(tmp_path / "data"),
            "ATLAS_QUEUE": f"atlas-{uuid.uuid4().hex[:8]}",
            "ATLAS_SEMANTIC": "off",
            "ATLAS_WORKER_CONCURRENCY": concurrency,
            **model.env(),
        }
        run = submit(conn, env["ATLAS_QUEUE"], "how do retries work?")
        with worker_process(env, name, *extra) as worker:
            # a run worked first: its heartbeat, job and pool threads are the ones an idle worker keeps
            wait_for(lambda: RunStore(conn).load(run.id).final, timeout=60, what="the run to be answered")
            wait_for(lambda: _waiting_on_queue(conn), timeout=10, what="the worker to wait in its dequeue")
            if extra:
                wait_for(lambda: _registered_scheduler(conn), timeout=10, what="the scheduler child to take its lock")
            threads = _threads(worker.pid)
            assert threads, "an idle worker has other threads (RQ's pubsub listener at least)"
            open_to_it = [tid for tid, blocked in threads.items() if signal.SIGTERM not in blocked]
            sent = time.monotonic()
            delivered = [tid for tid in open_to_it if _tgkill(worker.pid, tid, signal.SIGTERM)]
            if not delivered:  # only the main thread takes it: the kernel delivers it there
                os.kill(worker.pid, signal.SIGTERM)
            wait_for(
                lambda: not _registered(conn, name),
                timeout=STOP_WITHIN_SECONDS,
                what=f"the warm stop (threads open to SIGTERM besides the main one: {open_to_it})",
            )
            assert worker.wait(timeout=10) == 0
            took = time.monotonic() - sent
            assert not (extra and _registered_scheduler(conn)), "the scheduler child stopped with its worker"
    assert took < STOP_WITHIN_SECONDS
    assert all({signal.SIGTERM, signal.SIGINT} <= blocked for blocked in threads.values()), threads


@pytest.mark.parametrize("concurrency", ["4", "1"])
def test_a_sigterm_once_redis_is_gone_ends_the_worker_with_one_line_and_exit_1(
    tmp_path: Path, redis_url: str, concurrency: str
) -> None:
    """A worker rides a Redis outage by retrying; asked to stop meanwhile, it stops: its stop's own Redis
    write failing must not drop it back into RQ's reconnect loop (it lived on, retrying, until SIGKILLed)."""
    make_dataset(tmp_path / "data")
    own = tmp_path / "redis-home"  # a server of this test's own, to shut down under the worker
    url = embedded_redis.ensure_running(own)
    conn = redis.Redis.from_url(url)
    name = f"w-gone-{concurrency}"
    env = {
        "ATLAS_HOME": str(tmp_path / "home"),
        "REDIS_URL": url,
        "ATLAS_DATA": str(tmp_path / "data"),
        "ATLAS_SEMANTIC": "off",
        "ATLAS_WORKER_CONCURRENCY": concurrency,
        "OPENAI_API_KEY": "test",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    try:
        with worker_process(env, name) as worker:
            wait_for(lambda: _waiting_on_queue(conn), timeout=60, what="the worker to wait in its dequeue")
            embedded_redis.stop(own)  # returns once the server is gone: the worker's BLMOVE lost its connection
            log = tmp_path / f"{name}.log"
            sent = time.monotonic()
            worker.send_signal(signal.SIGTERM)
            try:
                code = worker.wait(timeout=STOP_WITHIN_SECONDS)
            except subprocess.TimeoutExpired:
                pytest.fail(f"the worker outlived its stop with Redis gone: {log.read_text()[-1500:]}")
            took = time.monotonic() - sent
    finally:
        embedded_redis.stop(own)
    assert code == 1 and took < STOP_WITHIN_SECONDS
    assert "worker stopped while Redis was unreachable" in log.read_text()
