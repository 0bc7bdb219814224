"""Real worker processes for end-to-end tests, and polling with a deadline instead of sleeping."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar
from urllib.request import urlopen

from tests.support.paths import REPO

T = TypeVar("T")


def atlas_command(
    *args: str, env: dict[str, str], timeout: float = 120, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `atlas ...` as its own process with exactly the given environment on top of PATH/HOME."""
    return subprocess.run(
        [sys.executable, "-m", "atlas.cli.main", *args],
        env=_env(env),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input_text,
    )


def _env(extra: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH")}
    return {**base, **extra}


@contextmanager
def worker_process(env: dict[str, str], name: str, *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real `atlas worker` process, killed at the end of the block if still running."""
    log = open(Path(env.get("ATLAS_HOME", "/tmp")).parent / f"{name}.log", "ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "atlas.cli.main", "worker", "--name", name, *extra],
        env=_env(env),
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the scheduler child goes down with it
    )
    try:
        yield proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
        log.close()


def wait_for(check: Callable[[], T], timeout: float = 30.0, interval: float = 0.05, what: str = "condition") -> T:
    """Poll `check` until it returns something truthy; fail with `what` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def serving(port: int) -> bool:
    """`atlas serve` answers its health check on 127.0.0.1:`port`."""
    try:
        with urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def atlas_process(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`atlas ARGS` in the background, its output appended to `log` (the child keeps the file open)."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "atlas.cli.main", *args],
            env=_env(env),
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def burst_worker(env: dict[str, str]) -> None:
    """`atlas worker --burst`: answer what is queued, then exit; it must exit cleanly."""
    done = atlas_command("worker", "--burst", env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@contextmanager
def atlas_serve(env: dict[str, str], log: Path) -> Iterator[int]:
    """`atlas serve` as its own process on a free loopback port, listening; yields the port."""
    port = free_port()
    proc = atlas_process(["serve", "--host", "127.0.0.1", "--port", str(port)], env, log)
    try:
        wait_for(lambda: serving(port) or proc.poll() is not None, timeout=60, what="atlas serve to listen")
        assert proc.poll() is None, log.read_text()
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
