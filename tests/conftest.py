"""Shared fixtures: a real Redis (REDIS_URL or an embedded valkey-server) flushed per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from atlas import embedded_redis


@pytest.fixture(scope="session")
def redis_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real server for the session: REDIS_URL if the environment has it, else an embedded one."""
    external = os.environ.get("ATLAS_TEST_REDIS_URL")
    if external:
        yield external
        return
    home = tmp_path_factory.mktemp("redis-home")
    url = embedded_redis.ensure_running(home)
    yield url
    embedded_redis.stop(home)


@pytest.fixture
def redis_url(redis_server_url: str) -> str:
    """The session server, emptied before the test so tests never see each other's keys."""
    redis.Redis.from_url(redis_server_url).flushall()
    return redis_server_url


@pytest.fixture
def redis_conn(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture
def atlas_env(tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A cleared environment for Atlas processes: temporary home, the test Redis, offline model."""
    for name in list(os.environ):
        if name.startswith(("ATLAS_", "OPENAI_", "SLACK_")) or name in {"REDIS_URL", "PORT"}:
            monkeypatch.delenv(name, raising=False)
    env = {"ATLAS_HOME": str(tmp_path / "home"), "REDIS_URL": redis_url}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


from tests.standins.fixtures import scripted_model  # noqa: E402,F401  (the strict Responses API stand-in)
