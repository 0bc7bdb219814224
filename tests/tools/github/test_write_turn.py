"""The GitHub write turn (tools/github/pacing.py) across processes: a holder that dies gives the turn up within
its short lease, a live holder keeps it as long as it writes (issue 35 item A)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from tests.support.paths import REPO
from tests.support.processes import wait_for
from tools.github import pacing
from tools.github.pacing import WritePacer

LOCK = "atlas:github:write:acme/rocket"
HOLDER = """
import sys, time, redis
from tools.github.pacing import WritePacer
pacer = WritePacer(redis.Redis.from_url(sys.argv[1]), "acme/rocket")
with pacer.turn():
    open(sys.argv[2], "w").write("held")
    time.sleep(600)
"""


def test_a_holder_sigkilled_in_its_turn_gives_it_up_within_the_lease(
    tmp_path: Path, redis_url: str, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = tmp_path / "held"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, redis_url, str(held)], cwd=REPO, start_new_session=True)
    try:
        wait_for(held.exists, timeout=30, what="the holder to take the turn")
        assert redis_conn.get(LOCK) is not None
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        assert redis_conn.pttl(LOCK) <= pacing.LEASE_MS  # a dead holder's turn outlives it by one lease at most
        monkeypatch.setattr(pacing, "WAIT_SECONDS", 30.0)  # half the old minute-long lock, which never lapsed in time
        written: list[str] = []
        with WritePacer(redis_conn, "acme/rocket").turn():
            written.append("next write")
        assert written == ["next write"] and redis_conn.get(LOCK) is None
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=10)


def test_a_live_holder_keeps_its_turn_past_the_lease(redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow write (GitHub answering late) must not lose the turn to the next writer mid-request."""
    monkeypatch.setattr(pacing, "LEASE_MS", 400)
    monkeypatch.setattr(pacing, "RENEW_SECONDS", 0.1)
    monkeypatch.setattr(pacing, "WAIT_SECONDS", 0.3)
    with WritePacer(redis_conn, "acme/rocket").turn():
        token = redis_conn.get(LOCK)
        time.sleep(1.2)  # three leases: renewed, not lapsed
        assert redis_conn.get(LOCK) == token
        with pytest.raises(pacing.WriteTurnTimeout):
            with WritePacer(redis_conn, "acme/rocket").turn():
                pass
    assert redis_conn.get(LOCK) is None
