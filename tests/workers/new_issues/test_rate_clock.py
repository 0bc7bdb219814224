"""A refusal is ordered by when Redis counted it, not by when its process read the clock: a digest marks what it
named by the last refusal's time, so one stamped earlier but counted after the digest would be named by none."""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from workers.new_issues import rates


class _Clock:
    """A process's clock read a moment before another's, as two jobs of one worker do."""

    def __init__(self, at: float) -> None:
        self.at = at

    def time(self) -> float:
        return self.at


def test_a_refusal_counted_after_a_digest_is_named_by_the_next(
    redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    scope = f"repo:race/{uuid.uuid4().hex}"
    assert rates.admit(redis_conn, scope, "race#1", 1)
    assert not rates.admit(redis_conn, scope, "race#2", 1)  # held back
    [named] = rates.held_back(redis_conn, scope)
    rates.digested(redis_conn, scope, named)  # a digest named #2
    monkeypatch.setattr(rates, "time", _Clock(time.time() - 0.5))  # #3 read the clock before #2's count, counted now
    assert not rates.admit(redis_conn, scope, "race#3", 1)
    monkeypatch.undo()
    assert rates.held_back(redis_conn, scope) == ["race#3"]  # the next digest names it
