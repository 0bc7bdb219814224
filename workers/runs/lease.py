"""One job at a time per run: a short Redis lease, renewed while the job works.

RQ can hand the same run to two jobs at once: a resume enqueued by a click while a retry of the
job whose worker died is also queued. The lease makes the second one step aside; the lease of a
killed worker lapses after `ttl` seconds, so the retry that RQ starts later finds it free.

One thread per process renews every lease the process holds (`_Renewer`): a thread started and joined
for each job cost a worker about 0.1 ms of CPU per run.
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

from atlas.lua import run_script

LEASE_TTL_SECONDS = 20

# Renew only while we still own the lease (another job may own it after a lapse); a lease that lapsed
# while Redis was down and that nobody took meanwhile is taken back. Release only our own.
_RENEW = """
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
if holder == false then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
"""
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
# Valkey 9 does the release in one command of its own (DELIFEQ: delete if the value is ours) instead of
# the script's three (EVALSHA, GET, DEL), once per job. Servers without it answer "unknown command" once
# per process, which is remembered; they keep the script.
_server_has_delifeq = True


def lease_key(run_id: str) -> str:
    return f"atlas:run:{run_id}:lease"


@dataclass(eq=False)
class _Lease:
    """One held lease: what renewing it takes, and when it is next due."""

    conn: redis.Redis
    key: str
    token: str
    ttl: int
    due: float
    active: bool = True
    lock: threading.Lock = field(default_factory=threading.Lock)  # held while a renewal is in flight


class _Renewer:
    """Renews each held lease every ttl/4 s (several renewals per TTL: one slow beat never loses it), from
    one daemon thread started on first use. `remove` returns only once no renewal of that lease is in
    flight or can start: a renewal after the release could take the lease back (`_RENEW`)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Fresh state; also in a forked child, which has none of the parent's threads (RQ's default worker forks per job)."""
        self._wake = threading.Condition()
        self._leases: list[_Lease] = []
        self._thread: threading.Thread | None = None

    def add(self, lease: _Lease) -> None:
        with self._wake:
            self._leases.append(lease)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="atlas-lease-renewer", daemon=True)
                self._thread.start()
            self._wake.notify()

    def remove(self, lease: _Lease) -> None:
        with lease.lock:  # waits out a renewal in flight (through a Redis outage, until it ends)
            lease.active = False
        with self._wake:
            self._leases.remove(lease)

    def _run(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                due = [lease for lease in self._leases if lease.due <= now]
                if not due:
                    soonest = min((lease.due for lease in self._leases), default=None)
                    self._wake.wait(None if soonest is None else soonest - now)
                    continue
            for lease in due:
                with lease.lock:
                    if not lease.active:
                        continue
                    try:
                        run_script(lease.conn, _RENEW, [lease.key], [lease.token, lease.ttl * 1000])
                    except redis.RedisError:
                        pass  # the next beat tries again; a lapse only lets a retry in after a real stall
                    lease.due = time.monotonic() + lease.ttl / 4


_renewer = _Renewer()
os.register_at_fork(after_in_child=_renewer._reset)


@contextmanager
def held(conn: redis.Redis, run_id: str, ttl: int = LEASE_TTL_SECONDS, wait: float = LEASE_TTL_SECONDS + 5) -> Iterator[bool]:
    """Yield True while this job holds the run's lease; False if another job kept it for `wait` s.

    Waiting covers the short races (a resume clicked while the pausing job is still finishing, or
    a dead worker's lease about to lapse); a holder still busy after that is working the run itself.
    """
    token = secrets.token_hex(8)
    key = lease_key(run_id)
    deadline = time.monotonic() + wait
    while not conn.set(key, token, nx=True, ex=ttl):
        if time.monotonic() >= deadline:
            yield False
            return
        time.sleep(0.2)
    lease = _Lease(conn, key, token, ttl, due=time.monotonic() + ttl / 4)
    _renewer.add(lease)
    try:
        yield True
    finally:
        _renewer.remove(lease)  # mid-renewal through a Redis outage: it finishes first, or it could retake the lease
        try:
            release(conn, key, token)
        except redis.RedisError:
            pass  # it lapses by itself


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
