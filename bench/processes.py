"""The Atlas processes a load benchmark runs against: `atlas serve` once it answers, and workers once
they have registered, each stopped when the phase ends (shared by the Slack, Discord and approvals suites)."""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from bench.measure import wait
from tests.support.processes import atlas_process, serving

log = logging.getLogger("bench.processes")
STOP_SECONDS = 15.0  # an idle worker's warm stop takes well under a second (tests/workers/process/test_stop_signals.py)


@contextmanager
def atlas_serve(
    env: dict[str, str], home: Path, port: int, processes: int | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """`atlas serve` on loopback `port` (`--processes` when given), yielded once it answers; if it exits
    first, RuntimeError with the tail of its log."""
    args = ["serve", "--host", "127.0.0.1", "--port", str(port)]
    if processes is not None:
        args += ["--processes", str(processes)]
    serve = atlas_process(args, env, home / "serve.log")
    try:
        wait(lambda: serving(port) or serve.poll() is not None, "atlas serve")
        if serve.poll() is not None:
            raise RuntimeError((home / "serve.log").read_text()[-2000:])
        yield serve
    finally:
        stop([serve])


@contextmanager
def atlas_workers(
    env: dict[str, str],
    home: Path,
    conn: redis.Redis,
    count: int,
    *,
    name: str = "bench",
    also: list[subprocess.Popen[bytes]] | None = None,
) -> Iterator[None]:
    """`count` workers, yielded once all have registered with RQ; `also`: processes started beside them,
    stopped with them."""
    procs = [
        atlas_process(["worker", "--name", f"{name}-{i}-{time.time_ns()}"], env, home / f"worker-{i}.log")
        for i in range(count)
    ]
    procs += also or []
    try:
        from rq import Worker

        wait(lambda: len(Worker.all(connection=conn)) >= count, "workers to register")
        yield
    finally:
        stop(procs)


def stop(procs: list[subprocess.Popen[bytes]], timeout: float = STOP_SECONDS) -> list[subprocess.Popen[bytes]]:
    """Terminate every process and wait for each, `timeout` seconds in all; one still running then is killed
    with a log line (an aborted suite would leave it serving, or retrying a Redis the suite stopped). Which
    were killed: a warm stop that did not happen is a finding, not a reason to lose the suite's figures."""
    for proc in procs:
        proc.terminate()
    deadline = time.monotonic() + timeout
    killed = []
    for proc in procs:
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            log.warning("%s (pid %d) did not stop within %.0f s of SIGTERM: killed", _named(proc), proc.pid, timeout)
            proc.kill()
            proc.wait()
            killed.append(proc)
    return killed


def _named(proc: subprocess.Popen[bytes]) -> str:
    """`atlas worker --name bench-0-…` for a process started by `atlas_process`."""
    args = [str(a) for a in proc.args] if isinstance(proc.args, list) else [str(proc.args)]
    return " ".join(["atlas", *args[3:]] if args[1:3] == ["-m", "atlas.cli.main"] else args)
