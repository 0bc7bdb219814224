"""The `atlas` command's failures: each one line on stderr and an exit code, never a traceback.

The error taxonomy at the command-line edge: the operator's fault (configuration, data) exits 2; a
service that is down (Redis, Slack) exits 1. Library exceptions are mapped here, where they reach
the person who ran the command; everything below keeps raising its own typed errors.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import redis

from atlas.errors import ConfigError, Unavailable

CONFIG_EXIT = 2  # fix a setting or the data, then run again
UNAVAILABLE_EXIT = 1  # a service is down or unreachable; running again later may work
INTERRUPTED_EXIT = 130


def explain(exc: BaseException, *, redis_at: str | None) -> tuple[str, int]:
    """One line (without the `atlas CMD:` prefix) and an exit code for an exception that ended a command."""
    from datasets.tracker_db import DatasetError

    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", INTERRUPTED_EXIT
    if isinstance(exc, ConfigError):
        return f"configuration error: {exc}", CONFIG_EXIT
    if isinstance(exc, DatasetError):
        return f"the data in ATLAS_DATA is unusable: {exc}", CONFIG_EXIT
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError)):
        where = f" at {redacted(redis_at)}" if redis_at else ""
        return f"Redis is unreachable{where} ({_first_line(exc)}); start it or fix REDIS_URL", UNAVAILABLE_EXIT
    if isinstance(exc, redis.RedisError):
        return f"Redis refused a command ({_first_line(exc)})", UNAVAILABLE_EXIT
    if isinstance(exc, Unavailable):
        return str(exc), UNAVAILABLE_EXIT
    from atlas.errors import EmbeddedRedisError

    if isinstance(exc, EmbeddedRedisError):
        return f"the embedded Redis did not start: {exc}", UNAVAILABLE_EXIT
    return f"unexpected {type(exc).__name__}: {_first_line(exc)} (a bug: please report it)", UNAVAILABLE_EXIT


def redacted(url: str) -> str:
    """A Redis URL without its password, fit to print."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
