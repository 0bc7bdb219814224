"""Concurrent calls of one script sharing round trips (atlas/batched_script.py), on a real Redis.

To make the sharing certain rather than likely, the first caller's round trip is held until every
other caller has queued behind it; the rest then go in one pipeline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis

from atlas.batched_script import BatchedScript
from bot.claims import message_claim
from bot.slack.intake import Intake, NewRun
from workers.runs.job_hash import JobTemplate
from workers.runs.state import Origin
from workers.runs.store import RunStore

CALLERS = 12
INCR = "return redis.call('INCR', KEYS[1])"


def _held_first_trip(script: BatchedScript, callers: int) -> list[int]:
    """Hold the first round trip until `callers - 1` calls wait behind it; the sizes of every round trip."""
    sizes: list[int] = []
    send = script._send

    def held(batch: list[Any]) -> None:
        if not sizes:
            assert _eventually(lambda: len(script._queued) == callers - 1), "the other callers never queued"
        sizes.append(len(batch))
        send(batch)

    script._send = held  # type: ignore[method-assign]
    return sizes


def _eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    done = threading.Event()
    deadline = threading.Timer(seconds, done.set)
    deadline.start()
    try:
        while not done.is_set():
            if check():
                return True
            done.wait(0.005)
        return check()
    finally:
        deadline.cancel()


def _call_all(script: BatchedScript, calls: list[tuple[list[str], list[Any]]]) -> list[Any]:
    """Every call from its own thread at once; each call's reply, or the exception it raised."""

    def one(keys: list[str], args: list[Any]) -> Any:
        try:
            return script(keys, args)
        except Exception as exc:  # the test compares what each caller got
            return exc

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda c: one(*c), calls))


def test_callers_that_arrive_together_share_a_round_trip_and_each_gets_its_own_reply(redis_conn: redis.Redis) -> None:
    script = BatchedScript(redis_conn, INCR, wait_seconds=10)
    sizes = _held_first_trip(script, CALLERS)
    replies = _call_all(script, [([f"counter:{i}"], []) for i in range(CALLERS)])
    assert replies == [1] * CALLERS  # each key incremented once: no call lost, none sent twice
    assert sizes == [1, CALLERS - 1]
    assert [int(redis_conn.get(f"counter:{i}") or 0) for i in range(CALLERS)] == [1] * CALLERS


def test_a_script_error_reaches_only_its_own_caller(redis_conn: redis.Redis) -> None:
    script = BatchedScript(
        redis_conn, "if ARGV[1] == 'bad' then return redis.error_reply('refused') end return ARGV[1]", wait_seconds=10
    )
    _held_first_trip(script, 4)
    replies = _call_all(script, [([], ["a"]), ([], ["b"]), ([], ["bad"]), ([], ["c"])])
    assert replies[0] == b"a" and replies[1] == b"b" and replies[3] == b"c"
    assert isinstance(replies[2], redis.ResponseError) and "refused" in str(replies[2])


def test_a_flushed_script_cache_is_loaded_again_for_a_shared_round_trip(redis_conn: redis.Redis) -> None:
    script = BatchedScript(redis_conn, INCR, wait_seconds=10)
    assert script(["warm"], []) == 1
    redis_conn.script_flush()
    sizes = _held_first_trip(script, 5)
    redis_conn.script_flush()  # the pipeline meets NOSCRIPT, not the first (plain) call
    assert _call_all(script, [([f"again:{i}"], []) for i in range(5)]) == [1] * 5
    assert sizes == [1, 4]


def test_an_unreachable_redis_fails_every_waiting_caller_with_a_redis_error() -> None:
    conn = redis.Redis(
        host="127.0.0.1", port=1, socket_connect_timeout=0.5, socket_timeout=0.5
    )  # nothing listens on port 1
    script = BatchedScript(conn, INCR, wait_seconds=10)
    sizes = _held_first_trip(script, CALLERS)
    replies = _call_all(script, [([f"k{i}"], []) for i in range(CALLERS)])
    assert sizes == [1, CALLERS - 1]
    assert all(isinstance(r, redis.ConnectionError) for r in replies), replies


def test_a_caller_still_queued_when_its_wait_ends_is_withdrawn_and_nothing_is_written(redis_conn: redis.Redis) -> None:
    script = BatchedScript(redis_conn, INCR, wait_seconds=0.3)
    release = threading.Event()
    send = script._send

    def stuck(batch: list[Any]) -> None:
        release.wait(10)
        send(batch)

    script._send = stuck  # type: ignore[method-assign]
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(script, ["first"], [])
        assert _eventually(lambda: script._sending)
        with pytest.raises(redis.TimeoutError):
            script(["late"], [])
        release.set()
        assert first.result(timeout=10) == 1
    assert redis_conn.get("late") is None and script._queued == [] and not script._sending


def test_concurrent_intakes_record_each_question_once(redis_conn: redis.Redis) -> None:
    """Twelve mentions, each delivered three times at once (Slack's retries, a DM's twin event): one
    run and one queued job per mention, whatever round trips the deliveries shared."""
    intake = Intake(redis_conn, JobTemplate.build(redis_conn, "atlas-batch"), "fp")
    sizes = _held_first_trip(intake.script, CALLERS * 3)
    messages = [(f"17000000{i:02d}.000100", f"Ev{i}") for i in range(CALLERS)]

    def deliver(ts: str, event_id: str) -> str:
        run_id = f"{int(float(ts)):016x}"
        run = NewRun(
            f"question {ts}", Origin(kind="slack", user="U1", channel="C1", thread_ts=ts, message_ts=ts, team="T1")
        )
        return intake.take(message_claim("T1", "C1", ts, event_id), run, f"atlas:thread:T1:C1:{ts}", run_id)

    with ThreadPoolExecutor(CALLERS * 3) as pool:
        outcomes = list(pool.map(lambda m: deliver(*m), messages * 3))
    assert len(sizes) >= 2 and max(sizes) > 1  # round trips were shared
    for i in range(CALLERS):
        mine = outcomes[i::CALLERS]
        assert mine.count("queued") == 1 and set(mine) <= {"queued", "duplicate"}
    queued = redis_conn.lrange("rq:queue:atlas-batch", 0, -1)
    assert len(queued) == len(set(queued)) == CALLERS
    store = RunStore(redis_conn)
    assert sorted(store.load(f"{int(float(ts)):016x}").question for ts, _ in messages) == sorted(
        f"question {ts}" for ts, _ in messages
    )
