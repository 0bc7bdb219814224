"""One job at a time per run: a short Redis lease, renewed while the job works.

RQ can hand the same run to two jobs at once: a resume enqueued by a click while a retry of the
job whose worker died is also queued. The lease makes the second one step aside; the lease of a
killed worker lapses after `ttl` seconds, so the retry that RQ starts later finds it free.

One thread per process renews every lease the process holds (`_Renewer`): a thread started and joined
for each job cost a worker about 0.1 ms of CPU per run.

A job can stall past the TTL while its lease is taken by another (RQ found it abandoned and retried it).
Each take of a run's lease writes its token in `taker_key` (the run's last taker; a count before issue 40, an
INCR and an EXPIRE where one SET now does), so a renewal tells "still ours" (or lapsed with nobody taking it since:
taken back) from "another job took it", even once that job released it again. A job
asks `Lease.check` before it saves or posts; a lost lease raises LeaseLost, and the job stops there.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis

from atlas import stop_signals
from atlas.lua import run_script
from workers.errors import LeaseLost

LEASE_TTL_SECONDS = 20
# How long a run's last taker is kept after its take: far past any job's life (a run's budget, a stall); a job
# that finds it gone stops (never takes back a lease it may have lost); about 100 bytes a run.
TAKEN_TTL_SECONDS = 24 * 3600

_clock = time.monotonic  # tests move it past a TTL instead of sleeping through one

# Take a free lease and name this holder its last taker, until another job takes the lease.
_TAKE = """
if not redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('set', KEYS[2], ARGV[1], 'EX', ARGV[3])
return 1
"""
# Renew only while we still own the lease; a lease that lapsed (Redis was down, or this job stalled) is
# taken back only if no other job took it since (we are still its last taker). 0: lost. Release only our own.
_RENEW = """
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
if holder == false and redis.call('get', KEYS[2]) == ARGV[1] then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1
end
return 0
"""
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
# Valkey 9 does the release in one command of its own (DELIFEQ: delete if the value is ours) instead of
# the script's three (EVALSHA, GET, DEL), once per job. Servers without it answer "unknown command" once
# per process, which is remembered; they keep the script.
_server_has_delifeq = True


def lease_key(run_id: str) -> str:
    return f"atlas:run:{run_id}:lease"


def unfenced() -> None:
    """The check of a run worked without a lease (tests, on_job_failure's last word): nothing to lose."""


def taker_key(run_id: str) -> str:
    """The token of the run's lease's last taker (`TAKEN_TTL_SECONDS` after its take). Not the count's key of
    before: during a rolling upgrade an older worker's INCR would fail on a token."""
    return f"atlas:run:{run_id}:lease:taker"


@dataclass(eq=False)
class Lease:
    """One held lease: what renewing it takes, when it is next due, and whether another job took it."""

    conn: redis.Redis
    run_id: str
    token: str
    ttl: int
    due: float
    confirmed: float  # when the last renewal that found it ours was sent (`_clock`)
    active: bool = True
    lost: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)  # held while a renewal is in flight

    def renew(self) -> None:
        """One renewal; finding the lease another job's marks it lost. A Redis error leaves it to the next beat."""
        with self.lock:
            if not self.active or self.lost:
                return
            sent = _clock()
            try:
                mine = run_script(
                    self.conn,
                    _RENEW,
                    [lease_key(self.run_id), taker_key(self.run_id)],
                    [self.token, self.ttl * 1000],
                )
            except redis.RedisError:
                mine = None  # the next beat tries again; a lapse only lets a retry in after a real stall
            if mine == 1:
                self.confirmed = sent
            elif mine == 0:
                self.lost = True
            self.due = _clock() + self.ttl / 4

    def check(self) -> None:
        """Raise LeaseLost if another job took the run since this one did. Free while the last renewal is
        recent (the lease cannot have lapsed since); after a stall of half the TTL, one renewal asks Redis."""
        if not self.lost and _clock() - self.confirmed >= self.ttl / 2:
            self.renew()
        if self.lost:
            raise LeaseLost(f"run {self.run_id}: another job took its lease")


class _Renewer:
    """Renews each held lease every ttl/4 s (several renewals per TTL: one slow beat never loses it), from
    one daemon thread started on first use. `remove` returns only once no renewal of that lease is in
    flight or can start: a renewal after the release could take the lease back (`_RENEW`)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Fresh state; also in a forked child, which has none of the parent's threads (RQ's default worker forks
        per job)."""
        self._wake = threading.Condition()
        self._leases: list[Lease] = []
        self._thread: threading.Thread | None = None

    def add(self, lease: Lease) -> None:
        with self._wake:
            self._leases.append(lease)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="atlas-lease-renewer", daemon=True)
                with stop_signals.held():  # it outlives the run: SIGTERM stays the main thread's
                    self._thread.start()
            self._wake.notify()

    def remove(self, lease: Lease) -> None:
        with lease.lock:  # waits out a renewal in flight (through a Redis outage, until it ends)
            lease.active = False
        with self._wake:
            if lease in self._leases:  # a lost one is already out
                self._leases.remove(lease)

    def _run(self) -> None:
        while True:
            with self._wake:
                now = _clock()
                due = [lease for lease in self._leases if lease.due <= now]
                if not due:
                    soonest = min((lease.due for lease in self._leases), default=None)
                    self._wake.wait(None if soonest is None else soonest - now)
                    continue
            for lease in due:
                lease.renew()
                if lease.lost:  # its job stops at its next check (workers/jobs/runs.py logs it)
                    with self._wake:
                        if lease in self._leases:
                            self._leases.remove(lease)


_renewer = _Renewer()
os.register_at_fork(after_in_child=_renewer._reset)


@contextmanager
def holding(
    conn: redis.Redis, run_id: str, ttl: int = LEASE_TTL_SECONDS, wait: float = LEASE_TTL_SECONDS + 5
) -> Iterator[Lease | None]:
    """Yield the run's lease while this job holds it; None if another job kept it for `wait` s.

    Waiting covers the short races (a resume clicked while the pausing job is still finishing, or
    a dead worker's lease about to lapse); a holder still busy after that is working the run itself.
    """
    token = secrets.token_hex(8)
    key = lease_key(run_id)
    sent = _clock()  # when the take that succeeds was sent
    deadline = time.monotonic() + wait
    while not run_script(conn, _TAKE, [key, taker_key(run_id)], [token, ttl * 1000, TAKEN_TTL_SECONDS]):
        if time.monotonic() >= deadline:
            yield None
            return
        time.sleep(0.2)
        sent = _clock()
    lease = Lease(conn, run_id, token, ttl, due=_clock() + ttl / 4, confirmed=sent)
    _renewer.add(lease)
    try:
        yield lease
    finally:
        _renewer.remove(lease)  # mid-renewal through a Redis outage: it finishes first, or it could retake the lease
        try:
            release(conn, key, token)
        except redis.RedisError:
            pass  # it lapses by itself


@contextmanager
def held(
    conn: redis.Redis, run_id: str, ttl: int = LEASE_TTL_SECONDS, wait: float = LEASE_TTL_SECONDS + 5
) -> Iterator[bool]:
    """`holding`, as True while this job holds the run's lease and False if another job kept it."""
    with holding(conn, run_id, ttl, wait) as lease:
        yield lease is not None


def release(conn: redis.Redis, key: str, token: str) -> None:
    """Delete the lease at `key` if it still holds `token` (a lapsed lease another job took is left alone)."""
    global _server_has_delifeq
    if _server_has_delifeq:
        try:
            conn.execute_command("DELIFEQ", key, token)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            return
        except redis.ResponseError as exc:
            if "unknown command" not in str(exc).lower():
                raise
            _server_has_delifeq = False
    run_script(conn, _RELEASE, [key], [token])
