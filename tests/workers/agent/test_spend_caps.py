"""Spend caps (issue 38): every model call reserves its worst case in Redis before it is made and settles to
its cost after, so concurrent runs never take a cap past itself by more than one call's worth."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import redis

from atlas.settings import Price
from workers.agent.capped_model import CappedModel, worst_case
from workers.agent.model import ModelReply, ModelRequest
from workers.agent.spend import KEEP_SECONDS, Ledger, Scope, day_key, next_midnight
from workers.errors import SpendCapReached
from workers.runs.state import Usage

PRICE = Price(input=1.0, cached_input=0.1, output=4.0)  # dollars per million tokens
NOON = 1_796_212_800.0  # 2026-12-02 12:00 UTC


class Replying:
    """A model that takes a little while and bills a fixed usage, counting the calls it was asked."""

    def __init__(self, usage: Usage, pause: float = 0.0, fail: bool = False) -> None:
        self.usage, self.pause, self.fail, self.calls = usage, pause, fail, 0
        self.lock = threading.Lock()

    def respond(self, request: ModelRequest) -> ModelReply:
        with self.lock:
            self.calls += 1
        time.sleep(self.pause)
        if self.fail:
            raise RuntimeError("the API is down")
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        }
        return ModelReply.of([item], self.usage)


def _request() -> ModelRequest:
    return ModelRequest(
        instructions="Answer.",
        input=[{"type": "message", "role": "user", "content": "hi"}],
        tools=[],
        max_output_tokens=1000,
    )


def test_a_call_reserves_its_worst_case_and_settles_to_its_cost_in_every_field(redis_conn: redis.Redis) -> None:
    ledger = Ledger(redis_conn, clock=lambda: NOON)
    scope = Scope(repo="orbit-labs/orbit", channel="slack:C0HELP")
    seen: list[dict[str, float]] = []

    class Watching(Replying):
        def respond(self, request: ModelRequest) -> ModelReply:
            seen.append(ledger.day())  # what the call's reservation put in the day while it is in flight
            return super().respond(request)

    model = CappedModel(Watching(Usage(input_tokens=100, output_tokens=250)), ledger, PRICE, scope)
    model.respond(_request())
    worst = worst_case(_request(), PRICE)
    assert worst >= 1000 * 4.0 / 1e6 and seen[0]["install"] == pytest.approx(worst, abs=1e-6)
    cost = (100 * 1.0 + 250 * 4.0) / 1e6
    assert ledger.day("2026-12-02") == {
        "install": pytest.approx(cost),
        "repo:orbit-labs/orbit": pytest.approx(cost),
        "channel:slack:C0HELP": pytest.approx(cost),
    }
    assert 0 < redis_conn.ttl(day_key("2026-12-02")) <= KEEP_SECONDS


def test_a_cap_without_room_for_the_worst_case_refuses_the_call_and_counts_nothing(redis_conn: redis.Redis) -> None:
    ledger = Ledger(redis_conn, clock=lambda: NOON)
    inner = Replying(Usage(input_tokens=100, output_tokens=1000))  # bills its worst case, near enough
    cost = (100 + 4000) / 1e6
    scope = Scope(repo="orbit-labs/orbit", channel="slack:C0HELP", install_cap=1.0, channel_cap=2.5 * cost)
    model = CappedModel(inner, ledger, PRICE, scope)
    model.respond(_request())
    model.respond(_request())
    before = ledger.day()
    with pytest.raises(SpendCapReached) as reached:
        model.respond(_request())
    assert (reached.value.which, reached.value.limit) == ("channel", 2.5 * cost)
    assert reached.value.resets_at == next_midnight(NOON) == 1_796_256_000.0  # 2026-12-03 00:00 UTC
    assert inner.calls == 2 and ledger.day() == before
    other = CappedModel(inner, ledger, PRICE, Scope(repo="orbit-labs/orbit", channel="slack:C0OTHER", install_cap=1.0))
    other.respond(_request())  # another channel still has room: the install's cap holds it, not this one's
    assert inner.calls == 3


def test_a_failed_call_gives_its_reservation_back(redis_conn: redis.Redis) -> None:
    ledger = Ledger(redis_conn, clock=lambda: NOON)
    model = CappedModel(Replying(Usage(), fail=True), ledger, PRICE, Scope(repo="r/r", install_cap=1.0))
    with pytest.raises(RuntimeError):
        model.respond(_request())
    assert ledger.day() == {"install": 0.0, "repo:r/r": 0.0}


def test_the_day_is_utc_and_a_call_that_crosses_midnight_settles_in_its_own_day(redis_conn: redis.Redis) -> None:
    now = [next_midnight(NOON) - 1]  # 23:59:59 UTC
    ledger = Ledger(redis_conn, clock=lambda: now[0])

    class Slow(Replying):
        def respond(self, request: ModelRequest) -> ModelReply:
            now[0] += 2  # past midnight while in flight
            return super().respond(request)

    CappedModel(Slow(Usage(input_tokens=10, output_tokens=10)), ledger, PRICE, Scope(repo="r/r")).respond(_request())
    assert ledger.day("2026-12-02")["install"] == pytest.approx(50 / 1e6) and ledger.day("2026-12-03") == {}


def test_concurrent_runs_overshoot_a_cap_by_at_most_one_calls_worth(redis_url: str) -> None:
    """Twelve threads, each its own Redis connection (as workers are), call as fast as they can against one cap."""
    cap = 0.05
    usage = Usage(input_tokens=200, output_tokens=900)  # under the worst case: 1000 output tokens may come back
    inner = Replying(usage, pause=0.002)
    one_call = worst_case(_request(), PRICE)
    refused = []

    def run() -> None:
        ledger = Ledger(redis.Redis.from_url(redis_url))
        model = CappedModel(inner, ledger, PRICE, Scope(repo="r/r", channel="slack:C0HELP", channel_cap=cap))
        for _ in range(40):
            try:
                model.respond(_request())
            except SpendCapReached:
                refused.append(1)

    threads = [threading.Thread(target=run) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spent = Ledger(redis.Redis.from_url(redis_url)).day()["channel:slack:C0HELP"]
    assert refused and inner.calls * (200 * 1.0 + 900 * 4.0) / 1e6 == pytest.approx(spent, abs=1e-5)
    assert cap - one_call <= spent <= cap + one_call  # the cap was used up, and not passed by more than a call


def _commands(conn: redis.Redis) -> int:
    """Commands the server ran so far, those inside scripts included (INFO commandstats)."""
    return sum(int(v["calls"]) for v in conn.info("commandstats").values())


def test_a_call_on_a_day_already_counted_costs_three_redis_commands(redis_conn: redis.Redis) -> None:
    """Issue 40: Redis commands per run. A reservation on a day's hash that exists (the usual call) and its settling:
    the script and its HINCRBY of the call's one field, then one HINCRBY (11 before: a HINCRBY per total and an
    EXPIRE each, MULTI and EXEC)."""
    ledger = Ledger(redis_conn, clock=lambda: NOON)
    scope = Scope(repo="orbit-labs/orbit", channel="slack:C0HELP")
    ledger.settle(ledger.reserve(scope, 0.002), 0.001)  # the day's first call sets its TTL (and loads the script)
    before = _commands(redis_conn)
    ledger.settle(ledger.reserve(scope, 0.002), 0.001)
    used = _commands(redis_conn) - before - 1  # less the first INFO
    assert used == 3, used
    assert ledger.day("2026-12-02") == {f: pytest.approx(0.002) for f in scope.fields()}
    assert 0 < redis_conn.ttl(day_key("2026-12-02")) <= KEEP_SECONDS


def test_a_day_counted_in_the_earlier_layout_still_counts_toward_its_totals_and_caps(redis_conn: redis.Redis) -> None:
    """A hash written before the upgrade holds one field per total; the new fields add to them."""
    redis_conn.hset(day_key("2026-12-02"), mapping={"install": 5000, "repo:r/r": 5000, "channel:slack:C1": 5000})
    ledger = Ledger(redis_conn, clock=lambda: NOON)
    scope = Scope(repo="r/r", channel="slack:C1", channel_cap=0.01)
    ledger.settle(ledger.reserve(scope, 0.004), 0.004)  # 0.005 + 0.004 fits the channel's 0.01
    other = Scope(repo="r/other", channel="slack:C2", install_cap=0.0125)
    ledger.settle(ledger.reserve(other, 0.003), 0.003)  # the install's 0.009 + 0.003 fits its 0.0125
    assert ledger.day("2026-12-02") == {
        "install": pytest.approx(0.012),
        "repo:r/r": pytest.approx(0.009),
        "repo:r/other": pytest.approx(0.003),
        "channel:slack:C1": pytest.approx(0.009),
        "channel:slack:C2": pytest.approx(0.003),
    }
    with pytest.raises(SpendCapReached) as reached:
        ledger.reserve(scope, 0.002)  # the channel's 0.009 + 0.002 is past its 0.01
    assert reached.value.which == "channel"
    with pytest.raises(SpendCapReached):
        ledger.reserve(other, 0.001)  # the install's 0.012 + 0.001 is past its 0.0125
