"""Redis connections: REDIS_URL when set, the embedded server otherwise."""

from __future__ import annotations

import redis
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.driver_info import DriverInfo
from redis.retry import Retry

from atlas import home
from atlas.settings import Settings


def text(value: bytes | str) -> str:
    """A Redis reply as text. Atlas's connections leave decode_responses off (replies are bytes), but
    redis-py types every reply as bytes or str."""
    return value.decode() if isinstance(value, bytes) else value


def redis_url(settings: Settings) -> str:
    """The URL every process of this deployment shares, starting the embedded server if needed."""
    if settings.redis_url:
        return settings.redis_url
    from atlas import embedded_redis  # only without REDIS_URL: it loads the server's package (50 ms of every command)

    return embedded_redis.ensure_running(home.usable(settings.home))


def connect(settings: Settings, *, socket_timeout: float | None = 5.0, connect_timeout: float = 2.0) -> redis.Redis:
    """A client for workers and the CLI. RQ needs bytes responses, so no decode_responses. The version its
    connections name in CLIENT SETINFO is the package's own: left to redis-py, each new connection reads it from the
    installed package's metadata (3 to 4 ms of CPU, most of a warm `atlas ask`'s first command)."""
    return redis.Redis.from_url(
        redis_url(settings),
        socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout,
        health_check_interval=30,
        driver_info=DriverInfo(lib_version=redis.__version__),
    )


def worker_connection(settings: Settings) -> redis.Redis:
    """A client that rides out a Redis outage: every command (RQ's and the job's) retries with capped,
    jittered backoff until Redis answers again, so a restart pauses a worker instead of ending it.
    For workers only: the bot must answer Slack within seconds and uses a fast-failing client."""
    conn = connect(settings)
    conn.set_retry(Retry(ExponentialWithJitterBackoff(cap=settings.redis_retry_cap_seconds, base=0.05), -1))
    return conn


def stop_waiting(conn: redis.Redis) -> None:
    """End the patience of `worker_connection`: calls retrying right now fail at their next error, and
    later ones fail at once. For a worker asked to stop while Redis is down."""
    pool = conn.connection_pool
    pool.connection_kwargs["retry"] = Retry(NoBackoff(), 0)  # connections made from now on (each copies it)
    for connection in [*getattr(pool, "_available_connections", []), *getattr(pool, "_in_use_connections", [])]:
        connection.retry.update_retries(0)  # a loop in progress reads its count at each failure
