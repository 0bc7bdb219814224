"""A Slack run that pauses for approval (progress closed, cards handed on, through an outage) or that the
person stops (one short note, no cards, nothing more), against the Slack stand-in."""

from __future__ import annotations

import json

import pytest
import redis

from bot.slack import wording
from bot.slack.surface import PROGRESS_MIN_INTERVAL
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.slack_reporter_harness import CHANNEL, THREAD, Clock, make_reporter, make_run, streams, tool_event
from workers.agent.events import Finished, Paused, StepStarted
from workers.errors import StoppedByUser
from workers.runs.state import PendingCall
from workers.runs.store import RunStore


def test_a_paused_run_closes_progress_and_hands_the_pending_calls_to_the_approval_cards(
    slack_api: SlackAPI, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.slack import cards as approval_cards

    handed: list[tuple[object, str, list]] = []
    monkeypatch.setattr(
        approval_cards, "post", lambda client, run, pending, **_: handed.append((client, run.id, pending))
    )
    reporter, run = make_reporter(slack_api, redis_conn, Clock()), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # a tool call opens the progress message
    run.status = "awaiting_approval"
    pending = [PendingCall(pending_id="p1", call_id="c1", name="add_labels", arguments="{}", step=1)]
    reporter.event(run, Paused(tuple(pending)))
    progress = slack_api.thread(CHANNEL, THREAD)[0]
    assert not progress["streaming"] and wording.PROGRESS_PAUSED in json.dumps(progress["chunks"])
    assert [(run_id, list(p)) for _, run_id, p in handed] == [(run.id, pending)]
    # the resumed job starts a fresh progress message at its first step
    reporter2 = make_reporter(slack_api, redis_conn, Clock())
    run.status = "running"
    reporter2.event(run, StepStarted(2))
    assert len(slack_api.calls_to("chat.startStream")) == 2


def test_an_approval_card_waits_out_a_slack_outage_and_the_run_stays_paused(
    slack_api: SlackAPI, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.slack import cards as approval_cards

    def post(client, run, pending, **_):  # noqa: ANN001 - the real signature's shape (conn, tracker by keyword); one plain card per call
        for call in pending:
            client.chat_postMessage(channel=CHANNEL, thread_ts=THREAD, text=f"card {call.pending_id}")

    monkeypatch.setattr(approval_cards, "post", post)
    reporter, run = make_reporter(slack_api, redis_conn, Clock()), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # a tool call opens the progress message
    run.status = "awaiting_approval"
    slack_api.outage("chat.postMessage", seconds=1.0)
    reporter.event(
        run, Paused((PendingCall(pending_id="p1", call_id="c1", name="add_labels", arguments="{}", step=1),))
    )
    progress, card = slack_api.thread(CHANNEL, THREAD)
    assert card["text"] == "card p1" and run.status == "awaiting_approval"
    assert wording.PROGRESS_PAUSED in json.dumps(progress["chunks"])


def test_a_stream_the_person_stops_ends_the_run_with_one_short_note(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    clock = Clock()
    reporter, run = make_reporter(slack_api, redis_conn, clock), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")
    [progress] = streams(slack_api)
    slack_api.stop_by_user(CHANNEL, progress["ts"])
    clock.now += PROGRESS_MIN_INTERVAL
    tool_event(reporter, run, "call_a", "done")  # Slack answers stopped_by_user
    tool_event(reporter, run, "call_b", "started")
    with pytest.raises(StoppedByUser):
        reporter.event(run, StepStarted(2))  # the run ends at the step boundary
    assert (
        len(slack_api.calls_to("chat.startStream")) == 1 and slack_api.calls_to("chat.update", "chat.postMessage") == []
    )
    assert [c.reply.get("error") for c in slack_api.calls_to("chat.appendStream")] == [
        None,
        "stopped_by_user",
    ]  # none after
    run.status, run.answer, run.stop_reason = "partial", "Stopped.", "stopped_by_user"
    reporter.event(run, Finished())
    make_reporter(slack_api, redis_conn).event(RunStore(redis_conn).load(run.id), Finished())  # a re-delivery
    progress_now, note = slack_api.thread(CHANNEL, THREAD)
    assert note["text"] == wording.PROGRESS_STOPPED and progress_now["ts"] == progress["ts"]
    assert RunStore(redis_conn).load(run.id).surface.stopped_by_user is True


def test_a_stop_pressed_before_the_cards_post_none(
    slack_api: SlackAPI, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.slack import cards as approval_cards

    monkeypatch.setattr(approval_cards, "post", lambda *a, **k: pytest.fail("a card was posted after the stop"))
    reporter, run = make_reporter(slack_api, redis_conn, Clock()), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # a tool call opens the progress message
    slack_api.stop_by_user(CHANNEL, streams(slack_api)[0]["ts"])
    with pytest.raises(StoppedByUser):
        reporter.event(
            run, Paused((PendingCall(pending_id="p1", call_id="c1", name="add_labels", arguments="{}", step=1),))
        )
