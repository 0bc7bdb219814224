"""A run's Slack progress message (bot/slack/progress.py) against the Slack stand-in through the real
WebClient: task cards streamed or one placeholder updated, buffering, Slack's refusals and rate limits."""

from __future__ import annotations

import json

import pytest
import redis

from bot.slack.surface import PROGRESS_MIN_INTERVAL
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.slack_reporter_harness import (
    CHANNEL,
    THREAD,
    Clock,
    finish,
    make_reporter,
    make_run,
    streams,
    tool_event,
)
from workers.agent.events import Finished, StepStarted
from workers.runs.state import RunState
from workers.runs.store import RunStore


def _one_tool_then_the_answer(api: SlackAPI, conn: redis.Redis, outcome: str) -> RunState:
    """A run reported through step 1 (one tool call ending `outcome`), step 2, then its answer."""
    reporter, run = make_reporter(api, conn, Clock()), make_run(conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")
    tool_event(reporter, run, "call_a", outcome)
    reporter.event(run, StepStarted(2))
    finish(run)
    reporter.event(run, Finished())
    return run


def test_progress_streams_task_cards_then_the_answer_lands_in_the_thread(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    run = _one_tool_then_the_answer(slack_api, redis_conn, "done")

    [start] = slack_api.calls_to("chat.startStream")
    assert (
        start.args["thread_ts"] == THREAD
        and start.args["recipient_user_id"] == "U0ALICE"
        and start.args["recipient_team_id"] == "T0TEST"
    )
    thread = slack_api.thread(CHANNEL, THREAD)
    progress, answer = thread
    cards = [c for c in progress["chunks"] if c["type"] == "task_update"]
    assert cards[-1] == {
        "type": "task_update",
        "id": "call_a",
        "title": "Searching issues for “ORB-1202”",
        "status": "complete",
    }
    assert not progress["streaming"]  # stopped before the answer was posted
    assert answer["blocks"][0] == {"type": "markdown", "text": "It is **PermanentError**; see #4."}
    assert "<https://git.example/issues/4|#4>" in json.dumps(answer["blocks"])
    stored = RunStore(redis_conn).load(run.id)
    assert stored.surface.answer_ts == [answer["ts"]] and stored.surface.progress_open is False


def test_updates_are_buffered_between_steps(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    clock = Clock()
    reporter, run = make_reporter(slack_api, redis_conn, clock), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # first update goes out at once
    for n in range(10):  # a burst within the interval: buffered
        tool_event(reporter, run, f"call_{n}", "started")
        tool_event(reporter, run, f"call_{n}", "done")
    assert len(slack_api.calls_to("chat.appendStream")) == 1
    clock.now += PROGRESS_MIN_INTERVAL
    tool_event(reporter, run, "call_z", "started")
    appended = slack_api.calls_to("chat.appendStream")
    assert len(appended) == 2
    ids = [c["id"] for c in appended[1].args["chunks"]]
    assert len(ids) == len(set(ids)) == 11  # one card per call, latest state only
    reporter.event(run, StepStarted(2))  # a step boundary flushes whatever is left
    assert len(slack_api.calls_to("chat.appendStream")) == 2  # nothing left to send


def test_without_streaming_one_placeholder_message_is_updated(redis_conn: redis.Redis) -> None:
    with SlackAPI(streaming=False) as api:
        _one_tool_then_the_answer(api, redis_conn, "failed")
        placeholder, answer = api.thread(CHANNEL, THREAD)
        assert "Searching issues for “ORB-1202”" in placeholder["text"] and ":x:" in placeholder["text"]
        assert "the answer is below" in placeholder["text"]
        assert answer["blocks"][0]["type"] == "markdown"
        assert len(api.calls_to("chat.postMessage")) == 2  # the placeholder and the answer, nothing else


def test_three_rate_limited_appends_delay_the_update_and_keep_one_message(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    clock = Clock()
    reporter, run = make_reporter(slack_api, redis_conn, clock), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    slack_api.rate_limit("chat.appendStream", times=3, retry_after=0)  # the client's two retries and one more
    tool_event(reporter, run, "call_a", "started")
    assert [c.status for c in slack_api.calls_to("chat.appendStream")] == [429, 429, 429]
    tool_event(reporter, run, "call_a", "done")  # the next update carries what was held back
    assert [c.status for c in slack_api.calls_to("chat.appendStream")] == [429, 429, 429, 200]
    [progress] = slack_api.thread(CHANNEL, THREAD)
    assert progress["streaming"] and len(slack_api.calls_to("chat.startStream")) == 1
    assert [c["status"] for c in progress["chunks"] if c["type"] == "task_update"] == ["complete"]


@pytest.mark.parametrize(
    "error", ["message_not_in_streaming_state", "streaming_mode_mismatch", "invalid_chunks", "internal_error"]
)
def test_a_refused_append_updates_the_same_message_instead_of_starting_another(
    slack_api: SlackAPI, redis_conn: redis.Redis, error: str
) -> None:
    clock = Clock()
    reporter, run = make_reporter(slack_api, redis_conn, clock), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    slack_api.refuse("chat.appendStream", error)
    tool_event(reporter, run, "call_a", "started")
    clock.now += PROGRESS_MIN_INTERVAL
    tool_event(reporter, run, "call_a", "done")
    reporter.event(run, StepStarted(2))
    finish(run)
    reporter.event(run, Finished())
    progress, answer = slack_api.thread(CHANNEL, THREAD)
    assert len(slack_api.calls_to("chat.startStream")) == 1 and progress["edits"] >= 2
    assert "Done after 2 steps" in progress["text"] and answer["blocks"]
    assert RunStore(redis_conn).load(run.id).surface.progress_mode == "placeholder"


def test_a_progress_message_that_is_gone_is_replaced_once(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    reporter, run = make_reporter(slack_api, redis_conn, Clock()), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # the first tool call opens the message
    [progress] = streams(slack_api)
    slack_api.messages[(CHANNEL, progress["ts"])]["deleted"] = True  # deleted by someone
    tool_event(reporter, run, "call_a", "done")
    reporter.event(run, StepStarted(2))
    [replacement] = slack_api.thread(CHANNEL, THREAD)
    assert "step 2" in replacement["text"].lower() and len(slack_api.calls_to("chat.startStream")) == 1


def test_a_run_answered_by_its_first_model_call_posts_only_the_answer(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    """No tool call, no progress to show: no progress message to open and close around the answer."""
    reporter, run = make_reporter(slack_api, redis_conn, Clock()), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    finish(run)
    reporter.event(run, Finished())
    [answer] = slack_api.thread(CHANNEL, THREAD)
    assert answer["blocks"][0]["type"] == "markdown"
    assert not slack_api.calls_to("chat.startStream") and not slack_api.calls_to("chat.stopStream")
    assert RunStore(redis_conn).load(run.id).surface.progress_ts is None


def test_a_resumed_run_opens_its_progress_message_at_its_first_step(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    """A step after the first means tools have run: the job that resumes the run shows its progress at once."""
    reporter, run = make_reporter(slack_api, redis_conn, Clock()), make_run(redis_conn)
    reporter.event(run, StepStarted(3))
    [progress] = streams(slack_api)
    assert progress["streaming"] and RunStore(redis_conn).load(run.id).surface.progress_open


def test_the_stand_in_holds_streams_to_slacks_rules(slack_api: SlackAPI) -> None:
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    client = WebClient(token=slack_api.token, base_url=slack_api.base_url)

    def error(method: str, **args: object) -> str:
        try:
            getattr(client, method)(**args)
        except SlackApiError as exc:
            return str(exc.response["error"])
        return "ok"

    assert (
        error("chat_startStream", channel=CHANNEL, thread_ts=THREAD, recipient_user_id="U1")
        == "missing_recipient_team_id"
    )
    assert (
        error("chat_startStream", channel=CHANNEL, thread_ts=THREAD, recipient_team_id="T1")
        == "missing_recipient_user_id"
    )
    assert error("chat_startStream", channel="D0ALICE", thread_ts=THREAD) == "ok"  # a DM needs no recipient
    ts = client.chat_startStream(
        channel=CHANNEL, thread_ts=THREAD, recipient_team_id="T1", recipient_user_id="U1", markdown_text="Working"
    )["ts"]
    assert (
        error(
            "chat_appendStream",
            channel=CHANNEL,
            ts=ts,
            chunks=[{"type": "task_update", "id": "a", "title": "t", "status": "complete"}],
        )
        == "streaming_mode_mismatch"
    )
    assert error("chat_appendStream", channel=CHANNEL, ts=ts, markdown_text="more") == "ok"
    assert (
        error(
            "chat_appendStream", channel=CHANNEL, ts=ts, chunks=[{"type": "task_update", "id": "a", "status": "done"}]
        )
        == "invalid_chunks"
    )
    slack_api.stop_by_user(CHANNEL, ts)
    assert error("chat_appendStream", channel=CHANNEL, ts=ts, markdown_text="more") == "stopped_by_user"
    assert error("chat_stopStream", channel=CHANNEL, ts=ts) == "stopped_by_user"
