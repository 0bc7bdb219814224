"""Help threads' state on a real Redis: a post opens its thread once, a channel never passes its hourly
limit (redeliveries not counted twice, the hour sliding), a maintainer's reply ends unprompted answers,
an asker's message sent while a run works waits for it, and a thread is handed off once."""

from __future__ import annotations

import json
import threading

import redis

from workers.help import threads

T = threads.slack_thread("T1", "C0HELP", "100.0")


def _follow(conn: redis.Redis, user: str, ts: str, *, run: str, limit: int = 10, now: float = 1000.0) -> str:
    return threads.follow(
        conn,
        T,
        user=user,
        channel="C0HELP",
        message=ts,
        message_json=json.dumps({"id": ts}),
        run_id=run,
        limit=limit,
        now=now,
    )


def test_a_post_opens_its_thread_once_and_the_limit_holds_under_a_flood(redis_conn: redis.Redis) -> None:
    assert (
        threads.open_thread(redis_conn, T, asker="U1", channel="C0HELP", post="100.0", run_id="r1", limit=3, now=1000.0)
        == "new"
    )
    assert (
        threads.open_thread(redis_conn, T, asker="U1", channel="C0HELP", post="100.0", run_id="r1", limit=3, now=1001.0)
        == "known"
    )
    outcomes: list[str] = []

    def post(i: int) -> None:
        thread = threads.slack_thread("T1", "C0HELP", f"{200 + i}.0")
        outcomes.append(
            threads.open_thread(
                redis_conn,
                thread,
                asker="U2",
                channel="C0HELP",
                post=f"{200 + i}.0",
                run_id=f"r{i}",
                limit=3,
                now=1002.0,
            )
        )

    flood = [threading.Thread(target=post, args=(i,)) for i in range(8)]
    for t in flood:
        t.start()
    for t in flood:
        t.join()
    # 3 an hour: the first post and two of the flood; the first held back says so (its note), the rest are silent
    assert sorted(outcomes) == ["held_channel"] + ["limited"] * 5 + ["new"] * 2
    late = threads.slack_thread("T1", "C0HELP", "999.0")
    assert (
        threads.open_thread(
            redis_conn, late, asker="U2", channel="C0HELP", post="999.0", run_id="rx", limit=3, now=1002.0 + 3601
        )
        == "new"
    )
    other = threads.slack_thread("T1", "C0OTHER", "1.0")
    assert (
        threads.open_thread(
            redis_conn, other, asker="U2", channel="C0OTHER", post="1.0", run_id="ry", limit=3, now=1002.0
        )
        == "new"
    )


def test_replies_follow_step_back_and_wait_for_a_run_in_flight(redis_conn: redis.Redis) -> None:
    assert _follow(redis_conn, "U1", "101.0", run="r2") == "none"  # not a help thread
    threads.open_thread(redis_conn, T, asker="U1", channel="C0HELP", post="100.0", run_id="r1", limit=10, now=1000.0)
    assert _follow(redis_conn, "U1", "101.0", run="r2") == "joined"  # r1 is still working
    assert _follow(redis_conn, "U1", "101.0", run="r2") == "joined"  # redelivered: counted and kept once
    assert threads.finished(redis_conn, T, "r1", "r3", now=1010.0) == [json.dumps({"id": "101.0"})]
    assert threads.finished(redis_conn, T, "r1", "r3") == []  # a retried job of r1 starts nothing
    assert threads.finished(redis_conn, T, "r3", "r4") == []  # r3 ends with nothing waiting
    assert _follow(redis_conn, "U1", "102.0", run="r5") == "follow"
    assert _follow(redis_conn, "U9", "103.0", run="r6") == "other"
    assert threads.step_back(redis_conn, T, "U9") and threads.stepped_back(redis_conn, T)
    assert _follow(redis_conn, "U1", "104.0", run="r7") == "stepped_back"
    assert not threads.step_back(redis_conn, threads.slack_thread("T1", "C0HELP", "5.0"), "U9")  # no help thread there
    assert redis_conn.ttl(f"atlas:help:thread:{T}") > 0


def test_a_thread_is_handed_off_by_one_run(redis_conn: redis.Redis) -> None:
    assert threads.claim_handoff(redis_conn, T, "r1")
    assert threads.claim_handoff(redis_conn, T, "r1")  # its retried job
    assert not threads.claim_handoff(redis_conn, T, "r2")
