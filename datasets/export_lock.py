"""The lock a synced folder's exports hold, and a reader's short wait for it.

A webhook job replaces issues/issues.jsonl and then restamps the issues' index in place
(datasets/github/index.py), both under this lock. A reader that stats the folder between the two sees a
new issues.jsonl and a stale stamp; without waiting it rebuilt the whole index (half a second of CPU at
10,000 issues, on every delivery a poller saw: bench github), work the in-place update was about to make
unnecessary. So a reader that finds the index stale first waits for the lock, briefly, and looks again.
"""

from __future__ import annotations

import fcntl
import time
from pathlib import Path

EXPORT_LOCK = ".sync/export.lock"  # under the synced folder
WAIT_SECONDS = 5.0  # an export and its in-place update take well under a second; past this, rebuild anyway


def wait_for_export(folder: Path, timeout: float = WAIT_SECONDS) -> bool:
    """Wait (at most `timeout` s) until no export of `folder` holds its lock; False when there is no lock
    file (a folder no sync wrote) or the wait timed out. Never blocks for good: a caller that itself holds
    the lock in this process only loses `timeout`."""
    try:
        handle = open(Path(folder) / EXPORT_LOCK, "rb")
    except OSError:
        return False
    with handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.005)
                continue
            fcntl.flock(handle, fcntl.LOCK_UN)
            return True
