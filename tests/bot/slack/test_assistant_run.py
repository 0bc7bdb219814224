"""A run asked in Slack's assistant view: the thread's title, its status while the run works, and the
channel the person was looking at as context. Through real `atlas serve` and `atlas worker` processes."""

from __future__ import annotations

import json

import redis

from bot.slack import wording
from bot.slack.stream import SEPARATOR
from tests.bot.slack.test_e2e import env, serve  # noqa: F401  (the e2e fixtures: atlas serve + env)
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SlackSender, assistant_message, assistant_thread_started, mention
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.processes import burst_worker
from workers.agent import instructions
from workers.runs.state import RunState
from workers.runs.store import RunStore

DM, THREAD = "D0ALICE", "1700030000.000100"


def _runs(conn: redis.Redis) -> list[RunState]:
    store = RunStore(conn)
    return [store.load(k.decode().split(":")[-1]) for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


def _statuses(api: SlackAPI, thread_ts: str) -> list[str]:
    return [
        c.args["status"] for c in api.calls_to("assistant.threads.setStatus") if c.args.get("thread_ts") == thread_ts
    ]


def test_a_question_in_the_assistant_view_gets_a_title_a_status_and_one_streamed_answer_with_feedback(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    slack_api.open_assistant_thread(DM, THREAD)
    assert serve.event(assistant_thread_started(thread_ts=THREAD, context_channel="C0RELEASES")).status == 200
    question = "What does ORB-1202 mean? " + "Please explain it to me in detail, " * 3  # long: the title is cut
    assert serve.event(assistant_message(question, thread_ts=THREAD, ts="1700030001.000100")).status == 200
    burst_worker(env)

    thread = slack_api.assistant_threads[(DM, THREAD)]
    assert (
        thread["title"].startswith("What does ORB-1202 mean?")
        and len(thread["title"]) <= 80
        and "\n" not in thread["title"]
    )
    statuses = _statuses(slack_api, THREAD)
    assert wording.ASSISTANT_STATUS["search_issues"] in statuses and statuses[-1] == ""  # cleared once answered
    working = [s for s in statuses if s in wording.ASSISTANT_STATUS.values() or s == wording.ASSISTANT_STATUS_THINKING]
    assert working[0] == wording.ASSISTANT_STATUS_THINKING and all(
        s != t for s, t in zip(working, working[1:], strict=False)
    )  # sent when it changes

    [run] = _runs(redis_conn)
    assert run.status == "done" and run.context_channel == "C0RELEASES"
    said = [i["content"] for i in run.items if i.get("type") == "message" and i.get("role") == "user"]
    assert said[:2] == [instructions.VIEWING_CHANNEL.format(channel="C0RELEASES"), question.strip()]
    greeting, message = slack_api.thread(DM, THREAD)  # the greeting, then one message: progress, then the answer
    assert greeting["text"] == wording.ASSISTANT_GREETING and not message["streaming"]
    kinds = [c["type"] for c in message["chunks"]]
    assert "task_update" in kinds and kinds[-1] == "markdown_text"
    streamed = "".join(c["text"] for c in message["chunks"] if c["type"] == "markdown_text")
    assert streamed == wording.PROGRESS_START + SEPARATOR + run.answer
    assert [b["type"] for b in message["blocks"]] == [
        "actions",
        "context",
        "context",
        "context_actions",
    ]  # file as issue, sources, footer, feedback
    assert "stop: done" in json.dumps(message["blocks"][2]) and run.surface.answer_ts == [message["ts"]]


def test_mentions_get_no_title_and_no_run_context(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    serve.event(mention("What does ORB-1202 mean?", ts="1700031000.000100"))
    burst_worker(env)
    [run] = _runs(redis_conn)
    assert run.status == "done" and run.context_channel is None
    assert slack_api.calls_to("assistant.threads.setTitle") == []
    assert not any(s in wording.ASSISTANT_STATUS.values() for s in _statuses(slack_api, "1700031000.000100"))
