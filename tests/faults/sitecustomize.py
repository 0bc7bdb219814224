"""Fault injection for worker processes started by the approval tests (PYTHONPATH=tests/faults).

With ATLAS_FAULT_HANG_BEFORE_RECORD=<path>, the worker writes <path> right after an approved side
effect has run and then hangs before the ledger records it, so the test can kill the worker in
exactly the window the ledger exists for. Production code has no hook for this.
"""

import os
import time

_marker = os.environ.get("ATLAS_FAULT_HANG_BEFORE_RECORD")
if _marker:
    from workers.approvals import ledger

    def _hang(*args, **kwargs):  # noqa: ANN002, ANN003
        with open(_marker, "w") as out:
            out.write(str(os.getpid()))
        while True:
            time.sleep(60)

    ledger.record = _hang

# With ATLAS_FAULT_WORKER_START=<text>, building a worker's runtime fails with <text>: a worker that
# dies at start, for `atlas ask` to notice.
_start_failure = os.environ.get("ATLAS_FAULT_WORKER_START")
if _start_failure:
    from workers.process import runtime

    def _fail(*args, **kwargs):  # noqa: ANN002, ANN003
        raise RuntimeError(_start_failure)

    runtime.build = _fail

# With ATLAS_FAULT_HANG_IN_WRITE_TURN=<path>, a GitHub write takes its turn (tools/github/pacing.py), writes
# <path> and hangs before its request leaves: a worker to SIGKILL while it holds the turn, its claim unsent.
_turn_marker = os.environ.get("ATLAS_FAULT_HANG_IN_WRITE_TURN")
if _turn_marker:
    from contextlib import contextmanager

    from tools.github import pacing

    _turn = pacing.WritePacer.turn

    @contextmanager
    def _held(self):  # noqa: ANN001, ANN202
        with _turn(self):
            with open(_turn_marker, "w") as out:
                out.write(str(os.getpid()))
            while True:
                time.sleep(60)
            yield

    pacing.WritePacer.turn = _held

# With ATLAS_FAULT_SLOW_REQUEST=<path>, `atlas serve` takes a request carrying `X-Atlas-Test-Delay: N`, writes
# <path>, and answers it through the real app N seconds later: a request in flight when SIGTERM arrives.
_slow_marker = os.environ.get("ATLAS_FAULT_SLOW_REQUEST")
if _slow_marker:
    from bot.web import serve as _serve

    _wsgi_app = _serve.wsgi_app

    def _slow_app(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        app = _wsgi_app(*args, **kwargs)

        def slow(environ, start_response):  # noqa: ANN001, ANN202
            delay = float(environ.get("HTTP_X_ATLAS_TEST_DELAY") or 0)
            if delay:
                with open(_slow_marker, "w") as out:
                    out.write(str(os.getpid()))
                time.sleep(delay)
            return app(environ, start_response)

        return slow

    _serve.wsgi_app = _slow_app
