"""How a help run reports (workers/help/handoff.py), on a real Redis and RQ queue: no progress reaches the
platform, a hand-off is posted once per thread, and the asker's replies that waited for a run get one
run, queued, with that run's answer in its history."""

from __future__ import annotations

from pathlib import Path

import redis
from rq import Queue

from atlas.settings import Settings
from workers.agent.events import Finished, RunEvent, StepStarted, ToolCalled
from workers.chat import ChatPlatform
from workers.help import followups, threads
from workers.help.handoff import HelpReporter
from workers.runs import conversations
from workers.runs.state import Origin, RunState, Turn
from workers.runs.store import RunStore


class Platform(ChatPlatform):
    """Records what reaches the platform; an answer becomes the thread's turn, as the real surfaces do."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn, self.seen, self.handed_off = conn, [], []  # type: ignore[var-annotated]

    def event(self, run: RunState, event: RunEvent) -> None:
        self.seen.append(event.kind)
        if isinstance(event, Finished) and run.answer:
            conversations.append(
                self.conn,
                run.origin.team,
                run.origin.channel or "",
                run.origin.thread_ts or "",
                run.id,
                Turn(question=run.question, answer=run.answer),
            )

    def hand_off(self, run: RunState, looked_at: str) -> None:
        self.handed_off.append((run.id, looked_at))


def _run(run_id: str, ts: str, *, handoff: str | None = None) -> RunState:
    origin = Origin(
        kind="slack", team="T1", channel="C0HELP", user="U1", thread_ts="100.0", message_ts=ts, unprompted=True
    )
    return RunState(
        id=run_id, question=f"question {ts}", origin=origin, status="done", answer="an answer", handoff=handoff
    )


def test_replies_sent_while_a_run_worked_get_one_run_after_it_with_its_answer(
    redis_conn: redis.Redis, tmp_path: Path
) -> None:
    settings = Settings(home=tmp_path, queue_name="help-test")
    thread = threads.slack_thread("T1", "C0HELP", "100.0")
    threads.open_thread(redis_conn, thread, asker="U1", channel="C0HELP", post="100.0", run_id="r1", limit=10)
    turns = conversations.thread_key("T1", "C0HELP", "100.0")
    for ts, text in (("101.0", "also this"), ("102.0", "and that")):
        assert (
            threads.follow(
                redis_conn,
                thread,
                user="U1",
                channel="C0HELP",
                message=ts,
                run_id=f"r{ts}",
                limit=10,
                message_json=followups.waiting_message(text, ts, turns),
            )
            == "joined"
        )
    platform = Platform(redis_conn)
    reporter = HelpReporter(platform, redis_conn, settings)
    first = _run("r1", "100.0")
    reporter.event(first, StepStarted(1))
    reporter.event(first, ToolCalled("c", "search_docs", "", "started"))
    reporter.event(first, Finished())
    assert platform.seen == ["answer"]  # no progress in a help channel

    [job_id] = Queue("help-test", connection=redis_conn).job_ids
    follow_up = RunStore(redis_conn).load(followups.next_run_id("r1"))
    assert job_id.endswith(follow_up.id) and follow_up.question == "also this\nand that"
    assert follow_up.history == [Turn(question="question 100.0", answer="an answer")]
    assert (
        follow_up.origin.unprompted and follow_up.origin.message_ts == "102.0" and follow_up.origin.thread_ts == "100.0"
    )
    reporter.event(first, Finished())  # a retried job of the first run queues nothing more
    assert len(Queue("help-test", connection=redis_conn).job_ids) == 1
    assert (
        redis_conn.hget(f"atlas:help:thread:{thread}", "active") == follow_up.id.encode()
    )  # the follow-up is in flight


def test_a_thread_is_handed_off_once_and_a_run_that_answers_is_not_handed_off(
    redis_conn: redis.Redis, tmp_path: Path
) -> None:
    platform = Platform(redis_conn)
    reporter = HelpReporter(platform, redis_conn, Settings(home=tmp_path, queue_name="help-test"))
    reporter.event(_run("r1", "100.0", handoff="searched X"), Finished())
    reporter.event(
        _run("r1", "100.0", handoff="searched X"), Finished()
    )  # its retried job: the platform skips what it posted
    reporter.event(_run("r2", "101.0", handoff="searched Y"), Finished())
    assert platform.handed_off == [("r1", "searched X"), ("r1", "searched X")] and platform.seen == []
    reporter.event(_run("r3", "102.0"), Finished())
    assert platform.seen == ["answer"]
