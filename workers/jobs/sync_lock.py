"""The backstop sync's lock (workers/jobs/github.py): never two syncs of a repository at once, and never held by
a dead one for long. The lock lives `ttl` seconds and a thread renews it while the sync runs; a SIGKILLed worker's
lock lapses within `ttl`, so the next periodic sync (and its triage catch-up) runs. With an hour's TTL, as before,
every sync after a worker died mid-sync said "another sync is running" for that hour, and the issues whose
webhooks met Redis down got no card (the chaos bench, docs/benchmarks.md).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from atlas.lua import run_script

SYNC_LOCK_TTL_SECONDS = 30  # a renewal every ttl/3: a beat or two late on a loaded machine still holds it

_RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('expire', KEYS[1], ARGV[2]) end return 0"
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


def lock_key(repo: str) -> str:
    return f"atlas:github:sync-lock:{repo}"


@contextmanager
def held(conn: redis.Redis, repo: str, ttl: int = SYNC_LOCK_TTL_SECONDS) -> Iterator[bool]:
    """True while this job holds the repository's sync lock (renewed every ttl/3 s); False if another holds it."""
    key, token = lock_key(repo), uuid.uuid4().hex
    if not conn.set(key, token, nx=True, ex=ttl):
        yield False
        return
    done = threading.Event()

    def renew() -> None:
        while not done.wait(ttl / 3):
            try:
                if not run_script(conn, _RENEW, [key], [token, ttl]):
                    return  # lapsed and taken (this sync stalled past the TTL): not ours to extend
            except redis.RedisError:
                continue  # Redis down: the next beat tries again

    beat = threading.Thread(target=renew, name="atlas-sync-lock", daemon=True)
    beat.start()
    try:
        yield True
    finally:
        done.set()
        beat.join()
        try:
            run_script(conn, _RELEASE, [key], [token])
        except redis.RedisError:
            pass  # it lapses by itself
