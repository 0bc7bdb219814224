"""bench/processes.py `stop`: a process that outlives its SIGTERM is killed with a log line, never left serving
while the suite aborts (a worker that missed its stop then retried a Redis the suite had shut down, forever)."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys

import pytest

from bench.processes import stop

STUBBORN = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
)


def test_a_process_that_ignores_sigterm_is_killed_after_the_timeout(caplog: pytest.LogCaptureFixture) -> None:
    stubborn = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    polite = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"  # its handler is in
        with caplog.at_level(logging.WARNING, logger="bench.processes"):
            killed = stop([stubborn, polite], timeout=1.0)
    finally:
        for proc in (stubborn, polite):
            proc.kill()
            proc.wait()
    assert killed == [stubborn]
    assert (stubborn.returncode, polite.returncode) == (-signal.SIGKILL, -signal.SIGTERM)
    assert f"(pid {stubborn.pid}) did not stop within 1 s of SIGTERM: killed" in caplog.text
