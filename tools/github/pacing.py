"""GitHub writes one at a time per installation, at least a second apart, across every worker.

GitHub's guidance for content-creating requests: serially, with a pause between them, or the
secondary rate limit answers 403. Workers may run on many machines, so the turn is a Redis lock per
repository (`SET NX PX` with the holder's token, released only by its holder) plus the time of the last
write. The lock is a short lease the holder renews while it writes: a holder that dies (SIGKILL, a lost
machine) stops renewing, so its turn lapses within LEASE_MS instead of stopping every write for a minute.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import redis

from atlas.lua import run_script
from atlas.stop_signals import held
from tools.errors import WriteTurnTimeout

log = logging.getLogger("atlas.tracker.github")
MIN_GAP_SECONDS = 1.0
LEASE_MS = 10_000  # how long a dead holder's turn outlives it, at most
RENEW_SECONDS = LEASE_MS / 1000 / 4  # a live holder renews four times per lease
WAIT_SECONDS = 120.0
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
_RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"


class WritePacer:
    """`with pacer.turn(): write()` — serial, spaced writes to one repository."""

    def __init__(
        self,
        conn: redis.Redis | None,
        repo: str,
        *,
        gap: float = MIN_GAP_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.conn, self.repo, self.gap, self.sleep = conn, repo, gap, sleep
        self._last_local = 0.0  # without Redis (a one-off CLI call): spacing within this process only

    @contextmanager
    def turn(self) -> Iterator[None]:
        if self.conn is None:
            self._space(self._last_local)
            try:
                yield
            finally:
                self._last_local = time.time()
            return
        lock, last = f"atlas:github:write:{self.repo}", f"atlas:github:last-write:{self.repo}"
        token = uuid.uuid4().hex
        deadline = time.monotonic() + WAIT_SECONDS
        while not self.conn.set(lock, token, nx=True, px=LEASE_MS):
            if time.monotonic() > deadline:
                raise WriteTurnTimeout(f"waited {WAIT_SECONDS:.0f}s for the write turn on {self.repo}")
            self.sleep(0.05)
        stop = threading.Event()
        renewer = threading.Thread(target=self._renew, args=(lock, token, stop), name="atlas-write-turn", daemon=True)
        with held():  # SIGTERM stays the main thread's (atlas/stop_signals.py)
            renewer.start()
        try:
            raw = self.conn.get(last)
            self._space(float(raw) if raw else 0.0)
            try:
                yield
            finally:
                self.conn.set(last, repr(time.time()), ex=3600)
        finally:
            stop.set()
            renewer.join()
            run_script(self.conn, _RELEASE, [lock], [token])

    def _renew(self, lock: str, token: str, stop: threading.Event) -> None:
        """Keep the lease while this holder lives; a holder that dies takes its renewals with it."""
        assert self.conn is not None
        while not stop.wait(RENEW_SECONDS):
            try:
                if not run_script(self.conn, _RENEW, [lock], [token, LEASE_MS]):
                    log.warning("the write turn on %s lapsed while held", self.repo)
                    return
            except redis.RedisError:  # Redis away for a moment: the next renewal tries again, within the lease
                log.warning("could not renew the write turn on %s", self.repo, exc_info=True)

    def _space(self, last: float) -> None:
        wait = last + self.gap - time.time()
        if wait > 0:
            self.sleep(wait)
