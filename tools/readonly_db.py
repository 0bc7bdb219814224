"""One read-only SQLite connection per thread (sqlite3 connections are not shared across threads), and snapshots.

A database can change under a reader (the knowledge index is updated in place, one WAL transaction per
update: datasets/knowledge_index.py). Each statement sees one commit, but a tool call runs several, so it
reads inside `snapshot()`: one read transaction on this thread's connection, begun at its first statement
(deferred `BEGIN`, so a store the call never reads costs nothing) and ended with the block. Under WAL a
reader neither waits for the writer nor blocks it; a long snapshot only keeps the writer's checkpoint from
passing it, so a snapshot lasts one call, never longer.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from datasets.tracker_db import connect_readonly


class ReadOnlyDb:
    """A derived database opened read-only, one connection per thread that uses it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()

    def connection(self) -> sqlite3.Connection:
        """This thread's read-only connection; inside `snapshot()`, in its read transaction."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = connect_readonly(self.path)
        if getattr(self._local, "depth", 0) and not conn.in_transaction:
            conn.execute("BEGIN")  # deferred: the snapshot is taken by the statement that follows
        return conn

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read of this thread inside the block sees one commit (nested blocks share the outer one)."""
        local = self._local
        local.depth = getattr(local, "depth", 0) + 1
        try:
            yield
        finally:
            local.depth -= 1
            conn = getattr(local, "conn", None)
            if local.depth == 0 and conn is not None and conn.in_transaction:
                conn.commit()  # nothing was written: this only ends the read transaction
