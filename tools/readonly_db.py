"""One read-only SQLite connection per thread (sqlite3 connections are not shared across threads)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from datasets.tracker_db import connect_readonly


class ReadOnlyDb:
    """A derived database opened read-only, one connection per thread that uses it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()

    def connection(self) -> sqlite3.Connection:
        """This thread's read-only connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = connect_readonly(self.path)
        return conn
