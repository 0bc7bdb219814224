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
