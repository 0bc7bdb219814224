"""A Redis client for the web process's request handlers (Slack, Discord, the console): it fails fast.

A request that waits on an unreachable Redis must still be answered in time, so both platforms and the
console build their client here rather than each tuning redis-py on its own.
"""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from atlas.connection import connect
from atlas.settings import Settings

# redis-py's defaults take seconds to give up on an unreachable server; Slack allows 3 s in all.
REDIS_TIMEOUT_SECONDS = 0.5
REDIS_RETRIES = 1  # one immediate retry on a dropped pooled connection, no backoff


def bot_redis(settings: Settings) -> redis.Redis:
    """A client that fails within about a second when Redis is unreachable."""
    conn = connect(settings, socket_timeout=REDIS_TIMEOUT_SECONDS, connect_timeout=REDIS_TIMEOUT_SECONDS)
    conn.set_retry(Retry(NoBackoff(), REDIS_RETRIES))
    return conn
