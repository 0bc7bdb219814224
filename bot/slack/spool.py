"""Questions kept on local disk while Redis is unreachable, queued by a background thread when it returns.

Slack retries an unacknowledged event only for a few minutes. A mention that arrives while Redis is
down is therefore written here (one fsynced file per message under ATLAS_HOME/spool, named by its
run id, so Slack's retries and a DM's twin events overwrite the same file) and acknowledged; the
drainer claims and enqueues it through the normal path once Redis answers again, then removes it.
A web process that restarts drains what an earlier one left behind.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

log = logging.getLogger("atlas.bot.slack.spool")

FIRST_WAIT_SECONDS = 0.2


class Spool:
    """A folder of pending questions, one JSON file each; writes are atomic and durable."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Keep `record` under `key` (replacing an earlier copy). Raises OSError if the disk refuses."""
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.folder / f"{key}.json"
        temporary = self.folder / f".{key}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, final)
        directory = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(directory)  # the rename itself survives a crash
        finally:
            os.close(directory)

    def entries(self) -> list[tuple[Path, dict[str, Any]]]:
        """What is waiting, oldest first; unreadable files are logged and left for an operator."""
        found: list[tuple[Path, dict[str, Any]]] = []
        if not self.folder.is_dir():
            return found
        for path in sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime):
            try:
                found.append((path, json.loads(path.read_text(encoding="utf-8"))))
            except (OSError, ValueError):
                log.error("spooled question %s is unreadable; left in place", path)
        return found


class Drainer:
    """A daemon thread that hands spooled questions to `take` until none is left.

    `take(record)` returns True when the question is queued (or was already), False to try it again
    later; a redis.RedisError means Redis is still down, and the thread waits (capped, jittered backoff).
    """

    def __init__(self, spool: Spool, take: Callable[[dict[str, Any]], bool], *, cap_seconds: float) -> None:
        self.spool = spool
        self.take = take
        self.cap_seconds = cap_seconds
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="atlas-spool", daemon=True)

    def start(self) -> Drainer:
        self._wake.set()  # look for leftovers of an earlier process at once
        self._thread.start()
        return self

    def poke(self) -> None:
        """A question was just spooled."""
        self._wake.set()

    def _loop(self) -> None:
        attempt = 0
        idle = True
        while True:
            wait = None if idle else random.uniform(0, min(self.cap_seconds, FIRST_WAIT_SECONDS * 2**attempt))
            self._wake.wait(timeout=wait)
            self._wake.clear()
            try:
                idle = self.drain()
                attempt = 0
            except redis.RedisError as exc:
                idle, attempt = False, attempt + 1
                log.info("spooled questions wait for Redis: %s", type(exc).__name__)
            except Exception:
                idle, attempt = False, attempt + 1
                log.exception("draining the spool failed")

    def drain(self) -> bool:
        """Queue what is spooled; True when nothing is left. Raises redis.RedisError while Redis is down."""
        left = 0
        for path, record in self.spool.entries():
            if self.take(record):
                path.unlink(missing_ok=True)
            else:
                left += 1
        return left == 0
