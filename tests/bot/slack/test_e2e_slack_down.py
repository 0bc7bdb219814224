"""End to end, when Slack does not take an answer: a post Slack failed to take is made by the retried job, an answer
waits out an outage and appears once, and one Slack never takes is told in the thread and shown by `atlas runs show`."""

from __future__ import annotations

import os
import signal
import threading
import time

import redis
from rq.registry import ScheduledJobRegistry

from bot.slack import wording
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SlackSender, mention
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.processes import (
    atlas_command,
    burst_worker,
    wait_for,
    worker_process,
)
from tests.support.slack_serving import CHANNEL, env, serve, serving_app  # noqa: F401 - fixtures, requested by name
from tests.support.slack_serving import answers as _answers
from workers.runs.store import RunStore


def test_an_answer_slack_failed_to_take_is_posted_by_the_retried_job(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    """Nothing is lost: a 5xx on posting the answer is tried again (with backoff), and it is posted once."""
    thread = "1700001000.000900"
    slack_api.server_error("chat.postMessage", times=1)
    assert serve.event(mention("What does ORB-1202 mean?", ts=thread)).status == 200
    burst_worker(env)  # the first attempt fails on the post; the burst worker runs the retry too
    statuses = [c.status for c in slack_api.calls_to("chat.postMessage")]
    assert statuses[0] == 500 and statuses.count(200) == 1
    assert len(_answers(slack_api, thread)) == 1


def test_an_answer_waits_out_a_slack_outage_and_appears_once(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    """Slack answering 503 to every post (for minutes in production, ATLAS_SLACK_OUTAGE_SECONDS): the worker
    hands the answer to a scheduled re-delivery (the deployment's `--with-scheduler` worker moves it onto the
    queue), which keeps trying with backoff, and the answer lands once, after Slack is back. The outage ends
    when the test has seen it, not on a clock, so a slow machine cannot make it end before the first post."""
    thread = "1700001100.000900"
    over = threading.Event()
    slack_api.outage("chat.postMessage", seconds=600, when=lambda args: not over.is_set())
    assert serve.event(mention("What does ORB-1202 mean?", ts=thread)).status == 200
    with worker_process(
        {**env, "ATLAS_SLACK_OUTAGE_SECONDS": "60", "ATLAS_SLACK_RETRY_CAP": "1"}, "outage", "--with-scheduler"
    ):
        wait_for(
            lambda: ScheduledJobRegistry("atlas", connection=redis_conn).get_job_ids(),
            timeout=60,
            what="a re-delivery scheduled while Slack is down",
        )
        back = time.monotonic()
        over.set()
        wait_for(lambda: _answers(slack_api, thread), timeout=60, what="the answer after the outage")
        [key] = [k for k in redis_conn.scan_iter("atlas:run:*") if k.count(b":") == 2]
        run = wait_for(
            lambda: (r := RunStore(redis_conn).load(key.decode().rsplit(":", 1)[1])).surface.outage_since is None and r,
            timeout=30,
            what="the run to record the delivery",
        )  # before the worker is killed
    posts = slack_api.calls_to("chat.postMessage")
    assert [c.status for c in posts][-1] == 200 and posts[0].status == 503 and posts[-1].at >= back
    assert len(_answers(slack_api, thread)) == 1
    assert run.status == "done" and run.surface.undelivered is None and run.surface.answer_ts


def test_an_answer_slack_never_takes_is_told_in_the_thread_and_shown_by_atlas_runs_show(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    thread = "1700001200.000900"
    assert serve.event(mention("What does ORB-1202 mean?", ts=thread)).status == 200
    slack_api.outage(
        "chat.postMessage", seconds=120, when=lambda args: bool(args.get("blocks"))
    )  # answers fail, notes pass
    burst_worker({**env, "ATLAS_SLACK_OUTAGE_SECONDS": "2", "ATLAS_SLACK_RETRY_CAP": "0.5"})
    assert _answers(slack_api, thread) == []
    [run] = [
        RunStore(redis_conn).load(k.decode().rsplit(":", 1)[1])
        for k in redis_conn.scan_iter("atlas:run:*")
        if k.count(b":") == 2
    ]
    notes = [m["text"] for m in slack_api.thread(CHANNEL, thread) if m.get("text")]
    assert notes == [wording.ANSWER_UNDELIVERED.format(minutes=1, minute_word="minute", run_id=run.id, count=0)]
    shown = atlas_command("runs", "show", run.id, env=env, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert run.answer and run.answer.splitlines()[0] in shown.stdout and "not delivered to Slack" in shown.stdout


def test_a_worker_killed_after_slack_took_the_answer_leaves_one_answer_the_retry_adopts(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    """One event, one answer: a real `atlas worker` SIGKILLed while the stand-in holds its reply to the answer's
    chat.postMessage (Slack has the message, the run never saves its ts); the job retried on another worker
    finds the message by its marker and posts no second (the chaos bench answered a mention twice so)."""
    thread = "1700001300.000900"
    held = slack_api.hold(
        "chat.postMessage", lambda args: args.get("thread_ts") == thread and "markdown" in str(args), processed=True
    )
    assert serve.event(mention("What does ORB-1202 mean?", ts=thread)).status == 200
    quick = {**env, "ATLAS_WORKER_HEARTBEAT_TTL": "3", "ATLAS_WORKER_MAINTENANCE": "1"}
    with worker_process(quick, "answer-a") as worker_a:
        assert held.reached.wait(60), "worker A never posted the answer"
        with worker_process(quick, "answer-b"):  # retries the job once A's lease lapses
            os.killpg(worker_a.pid, signal.SIGKILL)
            worker_a.wait(timeout=10)
            held.release.set()
            [key] = [k for k in redis_conn.scan_iter("atlas:run:*") if k.count(b":") == 2]
            run_id = key.decode().rsplit(":", 1)[1]
            assert RunStore(redis_conn).load(run_id).surface.answer_ts == []  # Slack has it; the run has no ts
            run = wait_for(
                lambda: (r := RunStore(redis_conn).load(run_id)).surface.answer_ts and r,
                timeout=90,
                what="the retried job to record the answer",
            )
    answers = _answers(slack_api, thread)
    assert len(answers) == 1, [a.get("ts") for a in answers]
    assert run.surface.answer_ts == [answers[0]["ts"]] and run.status == "done"
