"""workers/runs/conversations.py: a thread's turns, appended once per run, the newest MAX_TURNS kept."""

from __future__ import annotations

import redis

from workers.runs import conversations
from workers.runs.conversations import MAX_TURNS, TURNS_TTL_SECONDS, Turn

THREAD = ("T0TEST", "C0GENERAL", "1700000000.000100")


def test_a_run_appends_its_turn_once(redis_conn: redis.Redis) -> None:
    turn = Turn(question="q", answer="a")
    assert conversations.append(redis_conn, *THREAD, "run-1", turn)
    assert not conversations.append(redis_conn, *THREAD, "run-1", turn)  # a re-delivered answer
    assert conversations.turns(redis_conn, *THREAD) == [turn]
    assert 0 < redis_conn.ttl(conversations.thread_key(*THREAD)) <= TURNS_TTL_SECONDS


def test_only_the_newest_turns_are_kept(redis_conn: redis.Redis) -> None:
    """Trimming happens only past MAX_TURNS, and then keeps exactly the newest MAX_TURNS."""
    for i in range(MAX_TURNS + 3):
        assert conversations.append(redis_conn, *THREAD, f"run-{i}", Turn(question=f"q{i}", answer=f"a{i}"))
        kept = conversations.turns(redis_conn, *THREAD)
        assert [t.question for t in kept] == [f"q{j}" for j in range(max(0, i + 1 - MAX_TURNS), i + 1)]
