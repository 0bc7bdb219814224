"""`atlas serve` stopped with SIGTERM while a request is in flight (issue 35 item D): the request is answered,
new connections are refused, then the process exits cleanly."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from urllib.request import Request, urlopen

from tests.support.approvals_harness import FAULTS
from tests.support.paths import REPO
from tests.support.processes import atlas_process, free_port, serving, wait_for


def test_sigterm_finishes_the_request_in_flight_before_exit(tmp_path: Path, atlas_env: dict[str, str]) -> None:
    marker, port = tmp_path / "in-flight", free_port()
    env = {
        **atlas_env,
        "PYTHONPATH": os.pathsep.join([str(FAULTS), str(REPO)]),
        "ATLAS_FAULT_SLOW_REQUEST": str(marker),
    }
    proc = atlas_process(["serve", "--host", "127.0.0.1", "--port", str(port)], env, tmp_path / "serve.log")
    answers: list[tuple[int, bytes]] = []
    failures: list[BaseException] = []

    def slow_request() -> None:
        try:
            slow = Request(f"http://127.0.0.1:{port}/healthz", headers={"X-Atlas-Test-Delay": "3"})
            with urlopen(slow, timeout=60) as response:
                answers.append((response.status, response.read()))
        except BaseException as exc:  # a connection cut off by the stop
            failures.append(exc)

    try:
        wait_for(lambda: serving(port) or proc.poll() is not None, timeout=60, what="atlas serve to listen")
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        client = threading.Thread(target=slow_request)
        client.start()
        wait_for(marker.exists, what="the slow request to reach the app")
        proc.send_signal(signal.SIGTERM)
        wait_for(lambda: not serving(port) or proc.poll() is not None, what="the listening socket to close")
        client.join(timeout=60)
        assert failures == [] and answers == [(200, b"ok\n")]
        assert proc.wait(timeout=30) == 0
        assert "finishing 1 request(s) in flight" in (tmp_path / "serve.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
