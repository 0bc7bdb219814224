"""SlackReporter against the Slack stand-in through the real WebClient: progress, answer, idempotency."""

from __future__ import annotations

import json

import pytest
import redis

from atlas.settings import Settings
from bot.slack.surface import PROGRESS_MIN_INTERVAL, SlackReporter
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from workers import wording
from workers.errors import StoppedByUser
from workers.runs import conversations
from workers.runs.state import Origin, RunState, StepRecord
from workers.runs.store import RunStore

CHANNEL, THREAD = "C0GENERAL", "1700000000.000100"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _reporter(api: SlackAPI, conn: redis.Redis, clock: Clock | None = None, outage: float = 5.0) -> SlackReporter:
    settings = Settings(slack_bot_token=api.token, slack_api_url=api.base_url, issues_base_url="https://git.example/issues",
                        slack_outage_seconds=outage, slack_retry_cap_seconds=0.2)
    reporter = SlackReporter.for_settings(settings, RunStore(conn))
    if clock is not None:
        reporter.clock = clock
    return reporter


def _run(conn: redis.Redis, **fields: object) -> RunState:
    run = RunState(question="What does ORB-1202 mean?",
                   origin=Origin(kind="slack", channel=CHANNEL, thread_ts=THREAD, message_ts=THREAD, user="U0ALICE", team="T0TEST"),
                   **fields)  # type: ignore[arg-type]
    RunStore(conn).save(run)
    return run


def _finish(run: RunState, answer: str = "It is **PermanentError**; see #4.") -> None:
    run.status, run.answer, run.stop_reason = "done", answer, "done"
    run.steps = [StepRecord(index=1), StepRecord(index=2)]
    run.sources = ["#4"]


def _tool(reporter: SlackReporter, run: RunState, call_id: str, state: str, query: str = "ORB-1202") -> None:
    reporter.event(run, "tool", call_id=call_id, name="search_issues", arguments=json.dumps({"query": query, "state": None}), state=state)


def test_progress_streams_task_cards_then_the_answer_lands_in_the_thread(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    clock = Clock()
    reporter, run = _reporter(slack_api, redis_conn, clock), _run(redis_conn)
    reporter.event(run, "step", step=1)
    _tool(reporter, run, "call_a", "started")
    _tool(reporter, run, "call_a", "done")
    reporter.event(run, "step", step=2)
    _finish(run)
    reporter.event(run, "answer")

    [start] = slack_api.calls_to("chat.startStream")
    assert start.args["thread_ts"] == THREAD and start.args["recipient_user_id"] == "U0ALICE" and start.args["recipient_team_id"] == "T0TEST"
    thread = slack_api.thread(CHANNEL, THREAD)
    progress, answer = thread
    cards = [c for c in progress["chunks"] if c["type"] == "task_update"]
    assert cards[-1] == {"type": "task_update", "id": "call_a", "title": "Searching issues for “ORB-1202”", "status": "complete"}
    assert not progress["streaming"]  # stopped before the answer was posted
    assert answer["blocks"][0] == {"type": "markdown", "text": "It is **PermanentError**; see #4."}
    assert "<https://git.example/issues/4|#4>" in json.dumps(answer["blocks"])
    stored = RunStore(redis_conn).load(run.id)
    assert stored.surface.answer_ts == [answer["ts"]] and stored.surface.progress_open is False


def test_updates_are_buffered_between_steps(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    clock = Clock()
    reporter, run = _reporter(slack_api, redis_conn, clock), _run(redis_conn)
    reporter.event(run, "step", step=1)
    _tool(reporter, run, "call_a", "started")  # first update goes out at once
    for n in range(10):  # a burst within the interval: buffered
        _tool(reporter, run, f"call_{n}", "started")
        _tool(reporter, run, f"call_{n}", "done")
    assert len(slack_api.calls_to("chat.appendStream")) == 1
    clock.now += PROGRESS_MIN_INTERVAL
    _tool(reporter, run, "call_z", "started")
    appended = slack_api.calls_to("chat.appendStream")
    assert len(appended) == 2
    ids = [c["id"] for c in appended[1].args["chunks"]]
    assert len(ids) == len(set(ids)) == 11  # one card per call, latest state only
    reporter.event(run, "step", step=2)  # a step boundary flushes whatever is left
    assert len(slack_api.calls_to("chat.appendStream")) == 2  # nothing left to send


def test_without_streaming_one_placeholder_message_is_updated(redis_conn: redis.Redis) -> None:
    with SlackAPI(streaming=False) as api:
        clock = Clock()
        reporter, run = _reporter(api, redis_conn, clock), _run(redis_conn)
        reporter.event(run, "step", step=1)
        _tool(reporter, run, "call_a", "started")
        _tool(reporter, run, "call_a", "failed")
        reporter.event(run, "step", step=2)
        _finish(run)
        reporter.event(run, "answer")
        placeholder, answer = api.thread(CHANNEL, THREAD)
        assert "Searching issues for “ORB-1202”" in placeholder["text"] and ":x:" in placeholder["text"]
        assert "the answer is below" in placeholder["text"]
        assert answer["blocks"][0]["type"] == "markdown"
        assert len(api.calls_to("chat.postMessage")) == 2  # the placeholder and the answer, nothing else


def test_a_redelivered_answer_updates_instead_of_posting_again(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = _run(redis_conn)
    _finish(run)
    _reporter(slack_api, redis_conn).event(run, "answer")
    again = RunStore(redis_conn).load(run.id)  # what a retried job would load
    _reporter(slack_api, redis_conn).event(again, "answer")
    assert len(slack_api.calls_to("chat.postMessage")) == 1
    assert slack_api.calls_to("chat.update") == []  # same content: nothing to change
    again.cost_usd = 0.5  # settled differently on the retry: the footer changes, the message is edited
    _reporter(slack_api, redis_conn).event(again, "answer")
    assert len(slack_api.calls_to("chat.postMessage")) == 1 and len(slack_api.calls_to("chat.update")) == 1
    assert len(slack_api.thread(CHANNEL, THREAD)) == 1
    assert conversations.turns(redis_conn, "T0TEST", CHANNEL, THREAD) == [conversations.Turn(question=run.question, answer=run.answer)]


def test_a_long_answer_posts_several_messages_within_limits(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = _run(redis_conn)
    paragraph = "Leases are renewed by heartbeats while the job runs. " * 30
    _finish(run, "\n\n".join([paragraph] * 25))
    _reporter(slack_api, redis_conn).event(run, "answer")
    posts = slack_api.calls_to("chat.postMessage")
    assert len(posts) >= 2 and all(p.reply["ok"] for p in posts)  # the stand-in enforces Slack's limits
    assert [p.args["thread_ts"] for p in posts] == [THREAD] * len(posts)
    assert RunStore(redis_conn).load(run.id).surface.answer_ts == [p.reply["ts"] for p in posts]


def test_rate_limited_calls_are_retried_after_retry_after(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = _run(redis_conn)
    _finish(run)
    slack_api.rate_limit("chat.postMessage", times=1, retry_after=0)
    _reporter(slack_api, redis_conn).event(run, "answer")
    statuses = [c.status for c in slack_api.calls_to("chat.postMessage")]
    assert statuses == [429, 200]
    assert len(slack_api.thread(CHANNEL, THREAD)) == 1


def test_an_answer_is_posted_once_after_a_slack_outage(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    """Slack down for a while: the answer waits it out with backoff, appears once, and only then does the
    progress message say that the answer is below."""
    reporter, run = _reporter(slack_api, redis_conn, Clock()), _run(redis_conn)
    reporter.event(run, "step", step=1)
    _finish(run)
    slack_api.outage("chat.postMessage", seconds=1.5)
    reporter.event(run, "answer")
    posts = slack_api.calls_to("chat.postMessage")
    assert [c.status for c in posts][-1] == 200 and {c.status for c in posts[:-1]} == {503} and len(posts) >= 3
    assert posts[-1].at - posts[0].at >= 1.4  # spread over the outage, not three tries in milliseconds
    progress, answer = slack_api.thread(CHANNEL, THREAD)
    assert answer["blocks"][0]["text"] == "It is **PermanentError**; see #4."
    [stop] = slack_api.calls_to("chat.stopStream")
    assert stop.at > posts[-1].at  # "the answer is below" only once it is
    assert wording.PROGRESS_DONE.format(steps=2, step_word="steps") in json.dumps(progress["chunks"])


def test_an_answer_slack_never_takes_is_kept_and_the_thread_told_plainly(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    reporter, run = _reporter(slack_api, redis_conn, Clock(), outage=1.0), _run(redis_conn)
    reporter.event(run, "step", step=1)
    _finish(run)
    slack_api.outage("chat.postMessage", seconds=60, when=lambda args: bool(args.get("blocks")))  # the answer, not plain notes
    reporter.event(run, "answer")
    progress, note = slack_api.thread(CHANNEL, THREAD)
    assert note["text"] == wording.ANSWER_UNDELIVERED.format(minutes=1, minute_word="minute", run_id=run.id, count=0)
    closing = json.dumps(progress["chunks"])
    assert wording.PROGRESS_ANSWER_UNDELIVERED in closing and "below" not in closing
    stored = RunStore(redis_conn).load(run.id)
    assert stored.answer == "It is **PermanentError**; see #4." and stored.surface.undelivered == "answer"


def test_a_lasting_refusal_is_not_retried(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = _run(redis_conn)
    _finish(run)
    slack_api.refuse("chat.postMessage", "channel_not_found", times=5)
    _reporter(slack_api, redis_conn).event(run, "answer")
    assert len(slack_api.calls_to("chat.postMessage")) == 2  # the answer once, then one try at the note


@pytest.mark.parametrize("error", ["invalid_blocks", "msg_blocks_too_long"])
def test_blocks_slack_refuses_fall_back_to_text(slack_api: SlackAPI, redis_conn: redis.Redis, error: str) -> None:
    run = _run(redis_conn)
    _finish(run)
    slack_api.refuse("chat.postMessage", error)
    _reporter(slack_api, redis_conn).event(run, "answer")
    [message] = slack_api.thread(CHANNEL, THREAD)
    assert message["blocks"] == [] and message["text"].startswith("It is **PermanentError**")


def test_a_paused_run_closes_progress_and_hands_the_pending_calls_to_the_approval_cards(
    slack_api: SlackAPI, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.slack import cards as approval_cards

    handed: list[tuple[object, str, list]] = []
    monkeypatch.setattr(approval_cards, "post", lambda client, run, pending, **_: handed.append((client, run.id, pending)))
    reporter, run = _reporter(slack_api, redis_conn, Clock()), _run(redis_conn)
    reporter.event(run, "step", step=1)
    run.status = "awaiting_approval"
    pending = [{"pending_id": "p1", "call_id": "c1", "name": "add_labels", "arguments": "{}", "step": 1}]
    reporter.event(run, "paused", pending=pending)
    progress = slack_api.thread(CHANNEL, THREAD)[0]
    assert not progress["streaming"] and wording.PROGRESS_PAUSED in json.dumps(progress["chunks"])
    assert [(run_id, p) for _, run_id, p in handed] == [(run.id, pending)]
    # the resumed job starts a fresh progress message at its first step
    reporter2 = _reporter(slack_api, redis_conn, Clock())
    run.status = "running"
    reporter2.event(run, "step", step=2)
    assert len(slack_api.calls_to("chat.startStream")) == 2


# -- Slack's streaming rules -------------------------------------------------------------------


def _streams(api: SlackAPI) -> list[dict]:
    return [m for m in api.thread(CHANNEL, THREAD) if "chunks" in m]


def test_a_stream_the_person_stops_ends_the_run_with_one_short_note(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    clock = Clock()
    reporter, run = _reporter(slack_api, redis_conn, clock), _run(redis_conn)
    reporter.event(run, "step", step=1)
    _tool(reporter, run, "call_a", "started")
    [progress] = _streams(slack_api)
    slack_api.stop_by_user(CHANNEL, progress["ts"])
    clock.now += PROGRESS_MIN_INTERVAL
    _tool(reporter, run, "call_a", "done")  # Slack answers stopped_by_user
    _tool(reporter, run, "call_b", "started")
    with pytest.raises(StoppedByUser):
        reporter.event(run, "step", step=2)  # the run ends at the step boundary
    assert len(slack_api.calls_to("chat.startStream")) == 1 and slack_api.calls_to("chat.update", "chat.postMessage") == []
    assert [c.reply.get("error") for c in slack_api.calls_to("chat.appendStream")] == [None, "stopped_by_user"]  # none after
    run.status, run.answer, run.stop_reason = "partial", "Stopped.", "stopped_by_user"
    reporter.event(run, "answer")
    _reporter(slack_api, redis_conn).event(RunStore(redis_conn).load(run.id), "answer")  # a re-delivery
    progress_now, note = slack_api.thread(CHANNEL, THREAD)
    assert note["text"] == wording.PROGRESS_STOPPED and progress_now["ts"] == progress["ts"]
    assert RunStore(redis_conn).load(run.id).surface.stopped_by_user is True


def test_a_stop_pressed_before_the_cards_post_none(slack_api: SlackAPI, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.slack import cards as approval_cards

    monkeypatch.setattr(approval_cards, "post", lambda *a, **k: pytest.fail("a card was posted after the stop"))
    reporter, run = _reporter(slack_api, redis_conn, Clock()), _run(redis_conn)
    reporter.event(run, "step", step=1)
    slack_api.stop_by_user(CHANNEL, _streams(slack_api)[0]["ts"])
    with pytest.raises(StoppedByUser):
        reporter.event(run, "paused", pending=[{"pending_id": "p1", "call_id": "c1", "name": "add_labels", "arguments": "{}", "step": 1}])


def test_three_rate_limited_appends_delay_the_update_and_keep_one_message(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    clock = Clock()
    reporter, run = _reporter(slack_api, redis_conn, clock), _run(redis_conn)
    reporter.event(run, "step", step=1)
    slack_api.rate_limit("chat.appendStream", times=3, retry_after=0)  # the client's two retries and one more
    _tool(reporter, run, "call_a", "started")
    assert [c.status for c in slack_api.calls_to("chat.appendStream")] == [429, 429, 429]
    _tool(reporter, run, "call_a", "done")  # the next update carries what was held back
    assert [c.status for c in slack_api.calls_to("chat.appendStream")] == [429, 429, 429, 200]
    [progress] = slack_api.thread(CHANNEL, THREAD)
    assert progress["streaming"] and len(slack_api.calls_to("chat.startStream")) == 1
    assert [c["status"] for c in progress["chunks"] if c["type"] == "task_update"] == ["complete"]


@pytest.mark.parametrize("error", ["message_not_in_streaming_state", "streaming_mode_mismatch", "invalid_chunks", "internal_error"])
def test_a_refused_append_updates_the_same_message_instead_of_starting_another(
    slack_api: SlackAPI, redis_conn: redis.Redis, error: str
) -> None:
    clock = Clock()
    reporter, run = _reporter(slack_api, redis_conn, clock), _run(redis_conn)
    reporter.event(run, "step", step=1)
    slack_api.refuse("chat.appendStream", error)
    _tool(reporter, run, "call_a", "started")
    clock.now += PROGRESS_MIN_INTERVAL
    _tool(reporter, run, "call_a", "done")
    reporter.event(run, "step", step=2)
    _finish(run)
    reporter.event(run, "answer")
    progress, answer = slack_api.thread(CHANNEL, THREAD)
    assert len(slack_api.calls_to("chat.startStream")) == 1 and progress["edits"] >= 2
    assert "Done after 2 steps" in progress["text"] and answer["blocks"]
    assert RunStore(redis_conn).load(run.id).surface.progress_mode == "placeholder"


def test_a_progress_message_that_is_gone_is_replaced_once(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    reporter, run = _reporter(slack_api, redis_conn, Clock()), _run(redis_conn)
    reporter.event(run, "step", step=1)
    [progress] = _streams(slack_api)
    slack_api.messages[(CHANNEL, progress["ts"])]["deleted"] = True  # deleted by someone
    _tool(reporter, run, "call_a", "started")
    reporter.event(run, "step", step=2)
    [replacement] = slack_api.thread(CHANNEL, THREAD)
    assert "step 2" in replacement["text"].lower() and len(slack_api.calls_to("chat.startStream")) == 1


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

    assert error("chat_startStream", channel=CHANNEL, thread_ts=THREAD, recipient_user_id="U1") == "missing_recipient_team_id"
    assert error("chat_startStream", channel=CHANNEL, thread_ts=THREAD, recipient_team_id="T1") == "missing_recipient_user_id"
    assert error("chat_startStream", channel="D0ALICE", thread_ts=THREAD) == "ok"  # a DM needs no recipient
    ts = client.chat_startStream(channel=CHANNEL, thread_ts=THREAD, recipient_team_id="T1", recipient_user_id="U1",
                                 markdown_text="Working")["ts"]
    assert error("chat_appendStream", channel=CHANNEL, ts=ts, chunks=[{"type": "task_update", "id": "a", "title": "t", "status": "complete"}]) == "streaming_mode_mismatch"
    assert error("chat_appendStream", channel=CHANNEL, ts=ts, markdown_text="more") == "ok"
    assert error("chat_appendStream", channel=CHANNEL, ts=ts, chunks=[{"type": "task_update", "id": "a", "status": "done"}]) == "invalid_chunks"
    slack_api.stop_by_user(CHANNEL, ts)
    assert error("chat_appendStream", channel=CHANNEL, ts=ts, markdown_text="more") == "stopped_by_user"
    assert error("chat_stopStream", channel=CHANNEL, ts=ts) == "stopped_by_user"


def test_an_approval_card_waits_out_a_slack_outage_and_the_run_stays_paused(
    slack_api: SlackAPI, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.slack import cards as approval_cards

    def post(client, run, pending, **_):  # noqa: ANN001 - the real signature's shape (conn, tracker by keyword); one plain card per call
        for call in pending:
            client.chat_postMessage(channel=CHANNEL, thread_ts=THREAD, text=f"card {call['pending_id']}")

    monkeypatch.setattr(approval_cards, "post", post)
    reporter, run = _reporter(slack_api, redis_conn, Clock()), _run(redis_conn)
    reporter.event(run, "step", step=1)
    run.status = "awaiting_approval"
    slack_api.outage("chat.postMessage", seconds=1.0)
    reporter.event(run, "paused", pending=[{"pending_id": "p1", "call_id": "c1", "name": "add_labels", "arguments": "{}", "step": 1}])
    progress, card = slack_api.thread(CHANNEL, THREAD)
    assert card["text"] == "card p1" and run.status == "awaiting_approval"
    assert wording.PROGRESS_PAUSED in json.dumps(progress["chunks"])
