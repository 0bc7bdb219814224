"""workers/runs/lease.py: one job at a time per run, and a release that only ever drops its own lease."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from workers.runs import lease


def _older_server(conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The same real server, answering DELIFEQ the way a server without it does (Redis, Valkey < 9)."""
    sent: list[str] = []
    real = conn.execute_command

    def execute_command(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]).upper())
        if sent[-1] == "DELIFEQ":
            raise redis.ResponseError("unknown command 'DELIFEQ', with args beginning with: ")
        return real(*args, **options)

    monkeypatch.setattr(conn, "execute_command", execute_command)
    monkeypatch.setattr(lease, "_server_has_delifeq", True)
    return sent


@pytest.mark.parametrize("server", ["valkey9", "older"])
def test_a_lease_is_held_then_released(redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch, server: str) -> None:
    sent = _older_server(redis_conn, monkeypatch) if server == "older" else []
    key = lease.lease_key("run-1")
    with lease.held(redis_conn, "run-1", ttl=5, wait=0) as mine:
        assert mine and redis_conn.get(key)
        with lease.held(redis_conn, "run-1", ttl=5, wait=0) as second:
            assert not second  # another job on the same run steps aside
    assert not redis_conn.exists(key)
    if server == "older":
        assert sent.count("DELIFEQ") == 1 and "EVALSHA" in sent and lease._server_has_delifeq is False


@pytest.mark.parametrize("server", ["valkey9", "older"])
def test_a_lapsed_lease_another_job_took_is_not_released(redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch, server: str) -> None:
    if server == "older":
        _older_server(redis_conn, monkeypatch)
    key = lease.lease_key("run-2")
    with lease.held(redis_conn, "run-2", ttl=5, wait=0) as mine:
        assert mine
        redis_conn.set(key, "another-job", ex=5)  # ours lapsed (a long stall) and another job took the run
    assert redis_conn.get(key) == b"another-job"
