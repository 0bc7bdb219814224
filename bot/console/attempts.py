"""Wrong console tokens are rate-limited per client address, in Redis (every web process shares the count).

After `LIMIT` wrong tokens from one address within `WINDOW_SECONDS`, that address is refused (429) until
the window ends, right token or not: guessing a 16-character token a few at a time gets nowhere.
"""

from __future__ import annotations

import hashlib

import redis

LIMIT = 10
WINDOW_SECONDS = 15 * 60


def _key(client: str) -> str:
    return f"atlas:console:wrong:{hashlib.sha256(client.encode()).hexdigest()[:32]}"


def blocked(conn: redis.Redis, client: str) -> bool:
    """True when this address has used up its wrong tries for now."""
    raw = conn.get(_key(client))
    return raw is not None and int(raw) >= LIMIT


def wrong(conn: redis.Redis, client: str) -> None:
    """Count one wrong token from this address (the window starts at the first)."""
    pipe = conn.pipeline(transaction=True)
    pipe.incr(_key(client))
    pipe.expire(_key(client), WINDOW_SECONDS, nx=True)
    pipe.execute()
