"""Redis connections: REDIS_URL when set, the embedded server otherwise."""

from __future__ import annotations

import redis

from atlas import embedded_redis, home
from atlas.settings import Settings


def redis_url(settings: Settings) -> str:
    """The URL every process of this deployment shares, starting the embedded server if needed."""
    return settings.redis_url or embedded_redis.ensure_running(home.usable(settings.home))


def connect(settings: Settings, *, socket_timeout: float | None = 5.0, connect_timeout: float = 2.0) -> redis.Redis:
    """A client for workers and the CLI. RQ needs bytes responses, so no decode_responses."""
    return redis.Redis.from_url(
        redis_url(settings),
        socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout,
        health_check_interval=30,
    )
