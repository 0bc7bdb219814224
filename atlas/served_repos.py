"""Which repositories this install serves now: the configured ones, changed by a GitHub App's installation.

`installation_repositories` deliveries add and remove repositories (bot/github/webhook.py); what they said is
kept in Redis, so every web process and worker agrees, and a restart keeps it. A removed repository is no
longer routed to (its webhooks are ignored) nor written to (a write says so); an added one is served once
synced. Names are compared in lower case, as GitHub does; a served name keeps the spelling it came with.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import redis

log = logging.getLogger("atlas.github.repos")
ADDED = "atlas:github:repos:added"  # hash: lower-case name -> name, repositories an installation added
REMOVED = "atlas:github:repos:removed"  # set of lower-case names an installation removed


def served(conn: redis.Redis | None, configured: tuple[str, ...]) -> tuple[str, ...]:
    """The repositories served now, configured first; the configured ones alone when Redis cannot say."""
    if conn is None:
        return configured
    try:
        with conn.pipeline(transaction=False) as pipe:
            pipe.hgetall(ADDED)
            pipe.smembers(REMOVED)
            added_raw, removed_raw = pipe.execute()
    except redis.RedisError:
        log.warning("served repositories: Redis unavailable, serving the configured ones")
        return configured
    removed = {_text(n) for n in removed_raw}
    names = [r for r in configured if r.lower() not in removed]
    known = {n.lower() for n in names}
    names += sorted(_text(v) for k, v in added_raw.items() if _text(k) not in known and _text(k) not in removed)
    return tuple(names)


def serving(conn: redis.Redis | None, configured: tuple[str, ...], name: str) -> str | None:
    """`name` as served (its configured spelling), or None when this install does not serve it now."""
    wanted = name.strip().lower()
    return next((r for r in served(conn, configured) if r.lower() == wanted), None)


def change(conn: redis.Redis, added: Iterable[str], removed: Iterable[str]) -> None:
    """Record an installation's change in one transaction: added ones are served again, removed ones no more."""
    with conn.pipeline(transaction=True) as pipe:
        for name in added:
            pipe.hset(ADDED, name.lower(), name)
            pipe.srem(REMOVED, name.lower())
        for name in removed:
            pipe.hdel(ADDED, name.lower())
            pipe.sadd(REMOVED, name.lower())
        pipe.execute()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
