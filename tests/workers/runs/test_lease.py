"""workers/runs/lease.py: one job at a time per run, and a release that only ever drops its own lease."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest
import redis

from workers.errors import LeaseLost
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
def test_a_lapsed_lease_another_job_took_is_not_released(
    redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch, server: str
) -> None:
    if server == "older":
        _older_server(redis_conn, monkeypatch)
    key = lease.lease_key("run-2")
    with lease.held(redis_conn, "run-2", ttl=5, wait=0) as mine:
        assert mine
        redis_conn.set(key, "another-job", ex=5)  # ours lapsed (a long stall) and another job took the run
    assert redis_conn.get(key) == b"another-job"


def test_every_lease_of_a_process_is_renewed_by_one_thread(redis_conn: redis.Redis) -> None:
    """A renewal thread per job cost each run about 0.1 ms of CPU; one per process renews them all."""
    seen = []
    for run_id in ("run-3", "run-4"):
        with lease.held(redis_conn, run_id, ttl=1, wait=0) as mine:
            assert mine
            threading.Event().wait(1.5)  # past the TTL: renewed
            assert redis_conn.get(lease.lease_key(run_id)) is not None
            seen.append(lease._renewer._thread)
        assert not redis_conn.exists(lease.lease_key(run_id))
    assert seen[0] is not None and seen[0] is seen[1] and seen[0].is_alive()
    assert [t.name for t in threading.enumerate()].count("atlas-lease-renewer") == 1


def test_a_forked_child_renews_its_own_lease(redis_conn: redis.Redis) -> None:
    """RQ's default worker forks a work horse per job: the child has none of the parent's threads."""
    with lease.held(redis_conn, "run-5", ttl=5, wait=0):
        pid = os.fork()
        if pid == 0:  # the child: a lease of its own, kept past its TTL
            ok = False
            try:
                with lease.held(redis_conn, "run-6", ttl=1, wait=0) as mine:
                    threading.Event().wait(1.5)
                    ok = mine and redis_conn.get(lease.lease_key("run-6")) is not None
            finally:
                os._exit(0 if ok else 1)
        deadline = time.monotonic() + 10
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if done[0] == 0:  # hung (a lock copied mid-use by the fork): end it, and fail
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert done[0] == pid and os.waitstatus_to_exitcode(done[1]) == 0
    assert not redis_conn.exists(lease.lease_key("run-6"))


def _stall(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """This process stalled for `seconds`: the lease's clock moves on (the server's keys expire by hand)."""
    real = time.monotonic
    monkeypatch.setattr(lease, "_clock", lambda: real() + seconds)


@pytest.mark.parametrize("taker", ["holds it", "already released it"])
def test_a_lease_another_job_took_after_a_stall_is_reported_lost(
    redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch, taker: str
) -> None:
    """Issue 29: A stalls past its TTL, B takes the run (and may finish and release it); A's next check finds out."""
    key = lease.lease_key("run-7")
    with lease.holding(redis_conn, "run-7", ttl=5, wait=0) as a:
        assert a is not None
        a.check()  # fresh: ours
        redis_conn.delete(key)  # A's lease expired on the server
        _stall(monkeypatch, 60)
        with lease.holding(redis_conn, "run-7", ttl=5, wait=0) as b:
            assert b is not None
            if taker == "holds it":
                with pytest.raises(LeaseLost):
                    a.check()
                b.check()  # B's is B's
                assert redis_conn.get(key) == b.token.encode()
        if taker == "already released it":
            with pytest.raises(LeaseLost):
                a.check()
            assert not redis_conn.exists(key)  # not taken back by A
        assert a.lost
    assert not redis_conn.exists(key)


def test_a_lapsed_lease_nobody_took_is_taken_back_by_the_check(
    redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stall or a Redis outage past the TTL with no other job taking the run is no loss: the job goes on."""
    key = lease.lease_key("run-8")
    with lease.holding(redis_conn, "run-8", ttl=5, wait=0) as mine:
        assert mine is not None
        redis_conn.delete(key)
        _stall(monkeypatch, 60)
        mine.check()
        assert redis_conn.get(key) == mine.token.encode() and not mine.lost


def test_a_check_while_the_lease_is_fresh_asks_redis_nothing(
    redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jobs check before every save and post: that costs no round trip unless the renewals fell behind."""
    with lease.holding(redis_conn, "run-9", ttl=20, wait=0) as mine:
        assert mine is not None
        sent: list[Any] = []
        real = redis_conn.execute_command
        monkeypatch.setattr(redis_conn, "execute_command", lambda *a, **k: sent.append(a[0]) or real(*a, **k))
        for _ in range(100):
            mine.check()
        assert sent == []


def test_taking_a_lease_costs_three_redis_commands(redis_conn: redis.Redis) -> None:
    """Issue 40: Redis commands per run. The script, the lease's SET and the last taker's SET (an INCR and an
    EXPIRE of a count before: 4)."""
    with lease.held(redis_conn, "run-10", ttl=5, wait=0):
        pass  # loads the script
    before = sum(int(v["calls"]) for v in redis_conn.info("commandstats").values())
    with lease.holding(redis_conn, "run-10", ttl=5, wait=0) as mine:
        taken = sum(int(v["calls"]) for v in redis_conn.info("commandstats").values()) - before - 1  # less an INFO
        assert mine is not None and taken == 3, taken
