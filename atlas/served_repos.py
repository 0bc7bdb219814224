"""Which repositories this install serves now: the configured ones, changed by a GitHub App's installation.

`installation_repositories` and `installation` deliveries add, remove, suspend and restore repositories
(bot/github/installation.py); what they said is kept in Redis, so every web process and worker agrees, and a
restart keeps it. A removed or suspended repository is no longer routed to (its webhooks are ignored) nor
written to (a write says why, `withdrawn`); an added one is synced by a job the delivery queues. Names are
compared in lower case, as GitHub does; a served name keeps the spelling it came with.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import redis

log = logging.getLogger("atlas.github.repos")
ADDED = "atlas:github:repos:added"  # hash: lower-case name -> name, repositories an installation added
WITHDRAWN = "atlas:github:repos:withdrawn"  # hash: lower-case name -> REMOVED or SUSPENDED
REMOVED, SUSPENDED = "removed", "suspended"
WHY = {
    REMOVED: "{repo} is no longer served by this install (removed from the GitHub App's installation)",
    SUSPENDED: "{repo} is not served while the GitHub App's installation is suspended",
}


def served(conn: redis.Redis | None, configured: tuple[str, ...]) -> tuple[str, ...]:
    """The repositories served now, configured first; the configured ones alone when Redis cannot say."""
    if conn is None:
        return configured
    try:
        with conn.pipeline(transaction=False) as pipe:
            pipe.hgetall(ADDED)
            pipe.hkeys(WITHDRAWN)
            added_raw, withdrawn_raw = pipe.execute()
    except redis.RedisError:
        log.warning("served repositories: Redis unavailable, serving the configured ones")
        return configured
    gone = {_text(n) for n in withdrawn_raw}
    names = [r for r in configured if r.lower() not in gone]
    known = {n.lower() for n in names}
    names += sorted(_text(v) for k, v in added_raw.items() if _text(k) not in known and _text(k) not in gone)
    return tuple(names)


def serving(conn: redis.Redis | None, configured: tuple[str, ...], name: str) -> str | None:
    """`name` as served (its configured spelling), or None when this install does not serve it now."""
    wanted = name.strip().lower()
    return next((r for r in served(conn, configured) if r.lower() == wanted), None)


def withdrawn(conn: redis.Redis | None, name: str) -> str | None:
    """Why `name` must not be written to now (a sentence), or None: one HGET before a write."""
    if conn is None:
        return None
    try:
        why = conn.hget(WITHDRAWN, name.lower())
    except redis.RedisError:
        return None  # the write itself meets GitHub's answer: an uninstalled App's token is refused there
    return WHY.get(_text(why), WHY[REMOVED]).format(repo=name) if why is not None else None


def change(conn: redis.Redis, added: Iterable[str], removed: Iterable[str]) -> None:
    """Record an installation's change in one transaction: added ones are served again, removed ones no more."""
    with conn.pipeline(transaction=True) as pipe:
        for name in added:
            pipe.hset(ADDED, name.lower(), name)
            pipe.hdel(WITHDRAWN, name.lower())
        for name in removed:
            pipe.hdel(ADDED, name.lower())
            pipe.hset(WITHDRAWN, name.lower(), REMOVED)
        pipe.execute()


def suspend(conn: redis.Redis, names: Iterable[str]) -> None:
    """The installation was suspended: its repositories are withdrawn until unsuspended (a removed one stays so)."""
    with conn.pipeline(transaction=True) as pipe:
        for name in names:
            pipe.hsetnx(WITHDRAWN, name.lower(), SUSPENDED)
        pipe.execute()


def unsuspend(conn: redis.Redis, names: Iterable[str]) -> None:
    """The installation is active again: its suspended repositories are served again, removed ones are not."""
    wanted = [name.lower() for name in names]
    if not wanted:
        return
    states = conn.hmget(WITHDRAWN, wanted)
    back = [name for name, state in zip(wanted, states, strict=True) if state is not None and _text(state) == SUSPENDED]
    if back:
        conn.hdel(WITHDRAWN, *back)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
