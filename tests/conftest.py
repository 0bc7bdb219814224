"""Shared fixtures: a real Redis (REDIS_URL or an embedded valkey-server) flushed per test."""

from __future__ import annotations

import os
import time
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
    """The session server, emptied before the test so tests never see each other's keys, and with
    no worker of an earlier test still waiting on a queue: emptying Redis does not stop a process,
    and such a worker would silently take this test's jobs with that test's settings."""
    conn = redis.Redis.from_url(redis_server_url)
    conn.flushall()
    if not os.environ.get("ATLAS_TEST_REDIS_URL"):  # a shared external server may have other users
        left = _waiting_workers(conn)
        if left:
            pytest.fail(f"a worker process of an earlier test is still serving the test Redis: {left}")
    return redis_server_url


def _waiting_workers(conn: redis.Redis, grace: float = 3.0) -> list[str]:
    """Clients blocked on a queue (an RQ worker waits in BLMOVE/BLPOP), after `grace` seconds for
    processes that are being killed right now to go."""
    deadline = time.monotonic() + grace
    while True:
        blocked = [
            f"{c.get('name') or '?'}@{c.get('addr')} ({c.get('cmd')})"
            for c in conn.client_list()
            if "b" in c.get("flags", "") and c.get("cmd") in {"blmove", "blpop", "brpoplpush", "bzpopmin"}
        ]
        if not blocked or time.monotonic() > deadline:
            return blocked
        time.sleep(0.05)


@pytest.fixture
def redis_conn(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture
def atlas_env(tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A cleared environment for Atlas processes: temporary home, the test Redis, offline model."""
    for name in list(os.environ):
        if name.startswith(("ATLAS_", "OPENAI_", "SLACK_")) or name in {"REDIS_URL", "PORT"}:
            monkeypatch.delenv(name, raising=False)
    # Docs search lexical: a worker started on a fresh copy of the data would embed its docs first (seconds);
    # the semantic path has its own tests (tests/tools/docsearch/test_semantic.py).
    env = {"ATLAS_HOME": str(tmp_path / "home"), "REDIS_URL": redis_url, "ATLAS_SEMANTIC": "off"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


from tests.standins.fixtures import scripted_model  # noqa: E402,F401  (the strict Responses API stand-in)
