"""Delivery guarantees: answers and cards that fail to post fail the job; one job per run at a time."""

from __future__ import annotations

import threading

import pytest
import redis

from workers.agent.events import Finished, Paused, RunEvent, ToolCalled
from workers.agent.ports import Reporter
from workers.agent.reporting import FanOut
from workers.errors import DeliveryFailed
from workers.runs import lease
from workers.runs.state import RunState


class Broken(Reporter):
    def event(self, run: RunState, event: RunEvent) -> None:
        raise RuntimeError("slack is down")


class Seen(Reporter):
    def __init__(self) -> None:
        self.kinds: list[str] = []

    def event(self, run: RunState, event: RunEvent) -> None:
        self.kinds.append(event.kind)


@pytest.mark.parametrize("event", [Finished(), Paused(())])
def test_a_failed_answer_or_card_raises_after_every_reporter_had_its_turn(event: RunEvent) -> None:
    seen = Seen()
    with pytest.raises(DeliveryFailed, match="Broken"):
        FanOut(Broken(), seen).event(RunState(question="q"), event)
    assert seen.kinds == [event.kind]


def test_a_failed_progress_update_is_only_logged() -> None:
    seen = Seen()
    FanOut(Broken(), seen).event(RunState(question="q"), ToolCalled("c", "search_docs", "", "started"))
    assert seen.kinds == ["tool"]


def test_the_run_lease_admits_one_job_and_outlives_its_ttl_while_held(redis_conn: redis.Redis) -> None:
    with lease.held(redis_conn, "r1", ttl=1) as first:
        assert first
        with lease.held(redis_conn, "r1", ttl=1, wait=0.3) as second:
            assert not second
        threading.Event().wait(1.5)  # past the TTL: the renewal thread kept it
        assert redis_conn.get(lease.lease_key("r1")) is not None
    assert redis_conn.get(lease.lease_key("r1")) is None  # released on exit
    with lease.held(redis_conn, "r1", ttl=1, wait=0) as again:
        assert again


def test_a_waiting_job_gets_the_lease_when_the_holder_finishes(redis_conn: redis.Redis) -> None:
    release = threading.Event()
    got: list[bool] = []

    def holder() -> None:
        with lease.held(redis_conn, "r2"):
            release.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        while redis_conn.get(lease.lease_key("r2")) is None:
            threading.Event().wait(0.01)
        threading.Timer(0.3, release.set).start()
        with lease.held(redis_conn, "r2", wait=5) as mine:
            got.append(mine)
    finally:
        release.set()
        thread.join()
    assert got == [True]


def test_a_lease_that_lapsed_while_redis_was_away_is_taken_back_unless_another_job_took_it(
    redis_conn: redis.Redis,
) -> None:
    key = lease.lease_key("r3")
    with lease.held(redis_conn, "r3", ttl=1) as mine:
        assert mine
        token = redis_conn.get(key)
        redis_conn.delete(key)  # lapsed: Redis was down past the TTL
        threading.Event().wait(0.6)  # one renewal later
        assert redis_conn.get(key) == token
        redis_conn.set(key, b"another-job")  # a retried job got it first
        threading.Event().wait(0.6)
        assert redis_conn.get(key) == b"another-job"
    assert redis_conn.get(key) == b"another-job"  # not ours to release
