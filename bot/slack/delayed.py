"""Calls scheduled a little later, on one timer thread, run on the bot's background pool.

Why: the "is looking into it" status is only worth a Web API call when no worker has started the
run by then; most runs start within milliseconds and show their own progress. One thread with a
heap costs nothing per call, unlike a `threading.Timer` (a thread) per mention.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor

log = logging.getLogger("atlas.bot.slack.delayed")

MAX_PENDING = 10_000  # beyond this, new calls are dropped (they are cosmetic) rather than piling up


class Delayed:
    """`call_later(seconds, fn)`: `fn` runs on `executor` once the delay has passed."""

    def __init__(self, executor: Executor, clock: Callable[[], float] = time.monotonic) -> None:
        self.executor = executor
        self.clock = clock
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def call_later(self, seconds: float, fn: Callable[[], None]) -> bool:
        """Schedule `fn`; False (and nothing scheduled) when too many calls are already waiting."""
        with self._wake:
            if len(self._heap) >= MAX_PENDING:
                return False
            entry = (self.clock() + seconds, next(self._order), fn)
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="atlas-delayed", daemon=True)
                self._thread.start()
            if self._heap[0] is entry:  # only an earlier deadline needs the timer thread woken
                self._wake.notify()
        return True

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._heap or self._heap[0][0] > self.clock():
                    timeout = None if not self._heap else max(self._heap[0][0] - self.clock(), 0.0)
                    self._wake.wait(timeout)
                _, _, fn = heapq.heappop(self._heap)
            try:
                self.executor.submit(fn)
            except RuntimeError:  # the executor was shut down: the process is stopping
                return
