"""One job at a time per run: a short Redis lease, renewed while the job works.

RQ can hand the same run to two jobs at once: a resume enqueued by a click while a retry of the
job whose worker died is also queued. The lease makes the second one step aside; the lease of a
killed worker lapses after `ttl` seconds, so the retry that RQ starts later finds it free.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

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
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(ttl / 4):  # several renewals per TTL: one slow beat never loses it
            try:
                run_script(conn, _RENEW, [key], [token, ttl * 1000])
            except redis.RedisError:
                pass  # the next beat tries again; a lapse only lets a retry in after a real stall

    beat = threading.Thread(target=renew, name=f"lease-{run_id}", daemon=True)
    beat.start()
    try:
        yield True
    finally:
        stop.set()
        beat.join(timeout=2)
        if beat.is_alive():  # mid-renewal through a Redis outage: let it finish, or it could retake the lease
            beat.join()
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
