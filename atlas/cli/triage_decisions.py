"""The maintainers' recorded decisions for `atlas triage N` and `atlas triage backtest` (issue 36 item 4): the
same outcomes a worker calibrates with (workers/triage/outcomes.py), read from this deployment's Redis when it
answers, so the CLI's figures are those the live triage would use. Redis is only ever read here, and briefly: a
deployment's REDIS_URL, else the embedded server when it is already running (a printing command starts no server
for this). Redis down, slow or refusing is a line in the output ("history only"), never a failure.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from atlas import embedded_redis, home
from atlas.settings import Settings
from workers.triage import outcomes
from workers.triage.outcomes import Outcome

CONNECT_SECONDS = 1.0  # a printing command waits this long at most for a Redis that does not answer
READ_SECONDS = 3.0
WITH = "with {count} recorded decisions of {repo} (Redis)"
WITHOUT = "Redis not reachable: history only ({why})"


@dataclass(frozen=True)
class Decisions:
    """What the calibration may add to the history, and the line that says so; `outcomes` None: none were read."""

    outcomes: list[Outcome] | None
    note: str

    @property
    def used(self) -> list[Outcome]:
        return self.outcomes or []


def repo_of(settings: Settings) -> str:
    """The repository key outcomes are kept under, as the worker's triage records it."""
    return settings.github.repo if settings.github is not None else "demo"


def reachable(settings: Settings) -> redis.Redis | str:
    """A fast-failing client of this deployment's Redis, or why there is none to ask (the caller closes it)."""
    if settings.redis_url:
        url = settings.redis_url
    else:
        where = home.usable(settings.home)
        if not embedded_redis.is_running(where):
            return "no REDIS_URL and the embedded server is not running"
        url = embedded_redis.url(where)
    return redis.Redis.from_url(
        url, socket_timeout=READ_SECONDS, socket_connect_timeout=CONNECT_SECONDS, retry=Retry(NoBackoff(), 0)
    )


def recorded(settings: Settings) -> Decisions:
    """The calibrating outcomes of this repository from Redis, or none with why (never raises on Redis)."""
    repo = repo_of(settings)
    conn = reachable(settings)
    if isinstance(conn, str):
        return Decisions(None, WITHOUT.format(why=conn))
    try:
        found = outcomes.load(conn, repo)
    except (redis.RedisError, OSError) as exc:
        return Decisions(None, WITHOUT.format(why=type(exc).__name__))
    finally:
        conn.close()
    return Decisions(found, WITH.format(count=len(found), repo=repo))
