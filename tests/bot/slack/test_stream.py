"""The answer streamed into the progress message of a run asked in Slack's assistant view, against the
Slack stand-in through the real WebClient: one message, the tail on the stop, and every fallback."""

from __future__ import annotations

import json

import redis
from slack_sdk.errors import SlackApiError

from atlas.settings import Settings
from bot.slack import wording
from bot.slack.stream import PIECE_CHARS, SEPARATOR, pieces
from bot.slack.surface import SlackReporter
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from workers.agent.events import Finished, StepStarted, ToolCalled
from workers.runs.state import Origin, RunState, StepRecord
from workers.runs.store import RunStore

DM, THREAD = "D0ALICE", "1700050000.000100"
ANSWER = "ORB-1202 is **PermanentError**: it is never retried; see #4."


def _reporter(api: SlackAPI, conn: redis.Redis) -> SlackReporter:
    settings = Settings(
        slack_bot_token=api.token, slack_api_url=api.base_url, issues_base_url="https://git.example/issues"
    )
    return SlackReporter.for_settings(settings, RunStore(conn))


def _run(conn: redis.Redis, *, assistant: bool = True) -> RunState:
    run = RunState(
        question="What does ORB-1202 mean?",
        surface={"assistant_thread": True} if assistant else {},
        origin=Origin(
            kind="slack", channel=DM, thread_ts=THREAD, message_ts="1700050001.000100", user="U0ALICE", team="T0TEST"
        ),
    )
    RunStore(conn).save(run)
    return run


def _work_and_finish(reporter: SlackReporter, run: RunState, answer: str = ANSWER) -> None:
    reporter.event(run, StepStarted(1))
    reporter.event(run, ToolCalled("call_a", "search_issues", json.dumps({"query": "ORB-1202"}), "started"))
    reporter.event(run, ToolCalled("call_a", "search_issues", json.dumps({"query": "ORB-1202"}), "done"))
    run.status, run.answer, run.stop_reason, run.sources = "done", answer, "done", ["#4"]
    run.steps = [StepRecord(index=1), StepRecord(index=2)]
    reporter.event(run, Finished())


def _markdown(message: dict) -> str:
    return "".join(c["text"] for c in message["chunks"] if c["type"] == "markdown_text")


def test_the_answer_is_streamed_into_the_progress_message_and_stopped_with_its_tail(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    run = _run(redis_conn)
    _work_and_finish(_reporter(slack_api, redis_conn), run)
    [message] = slack_api.thread(DM, THREAD)
    assert _markdown(message) == wording.PROGRESS_START + SEPARATOR + ANSWER and not message["streaming"]
    assert [c for c in message["chunks"] if c["type"] == "task_update"][-1]["status"] == "complete"
    assert [b["type"] for b in message["blocks"]] == ["actions", "context", "context", "context_actions"]
    assert "<https://git.example/issues/4|#4>" in json.dumps(message["blocks"])
    feedback = message["blocks"][-1]["elements"][0]
    assert feedback["positive_button"]["value"] == f"{run.id}:up" and feedback["positive_button"]["accessibility_label"]
    stored = RunStore(redis_conn).load(run.id)
    assert stored.surface.answer_ts == [message["ts"]] and stored.surface.progress_open is False

    calls = len(slack_api.calls)
    _reporter(slack_api, redis_conn).event(stored, Finished())  # a re-delivery (a retried job) changes nothing
    assert [c.method for c in slack_api.calls[calls:]] == []


def test_mentions_and_dms_keep_their_answer_as_a_message_of_its_own(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    _work_and_finish(_reporter(slack_api, redis_conn), _run(redis_conn, assistant=False))
    progress, answer = slack_api.thread(DM, THREAD)
    assert _markdown(progress).endswith("the answer is below._") and answer["blocks"][0]["type"] == "markdown"


def test_a_workspace_without_streaming_gets_the_placeholder_and_a_posted_answer(redis_conn: redis.Redis) -> None:
    with SlackAPI(streaming=False) as api:
        _work_and_finish(_reporter(api, redis_conn), _run(redis_conn))
        placeholder, answer = api.thread(DM, THREAD)
        assert "the answer is below" in placeholder["text"]
        assert [b["type"] for b in answer["blocks"]] == ["markdown", "actions", "context", "context", "context_actions"]
        assert api.calls_to("chat.appendStream", "chat.stopStream") == []


def test_an_answer_too_long_for_one_message_is_posted_as_before(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    long = "\n\n".join(f"Paragraph {n}: " + "lease_seconds bounds a lease. " * 60 for n in range(8))
    _work_and_finish(_reporter(slack_api, redis_conn), _run(redis_conn), answer=long)
    progress, *answers = slack_api.thread(DM, THREAD)
    assert len(answers) == 2 and all(b["type"] == "markdown" for b in answers[0]["blocks"])
    assert SEPARATOR + "Paragraph 0" not in _markdown(progress)


def test_a_stream_slack_no_longer_takes_is_finished_in_the_same_message(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    slack_api.refuse("chat.stopStream", "message_not_in_streaming_state")
    run = _run(redis_conn)
    _work_and_finish(_reporter(slack_api, redis_conn), run)
    [message] = slack_api.thread(DM, THREAD)  # no second message
    assert (
        message["blocks"][0] == {"type": "markdown", "text": ANSWER}
        and message["blocks"][-1]["type"] == "context_actions"
    )
    assert RunStore(redis_conn).load(run.id).surface.answer_ts == [message["ts"]]


def test_a_stop_press_while_the_answer_streams_leaves_the_short_note(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    reporter, run = _reporter(slack_api, redis_conn), _run(redis_conn)
    reporter.event(run, StepStarted(1))
    slack_api.stop_at_next_append()
    run.status, run.answer, run.stop_reason = "done", ANSWER, "done"
    reporter.event(run, Finished())
    progress, note = slack_api.thread(DM, THREAD)
    assert progress["stopped_by_user"] and note["text"] == wording.PROGRESS_STOPPED


def test_a_slack_failure_mid_answer_is_continued_after_the_last_piece_slack_took(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    answer = "\n".join(f"line {n} " + "x" * 90 for n in range(40))  # about three appends
    assert len(pieces(answer, 0)) == 3
    reporter, run = _reporter(slack_api, redis_conn), _run(redis_conn)
    reporter.event(run, StepStarted(1))
    run.status, run.answer, run.stop_reason = "done", answer, "done"
    slack_api.server_error(
        "chat.appendStream", after=1
    )  # the first piece gets through, then Slack fails (an append is not retried on 5xx)
    try:
        reporter.event(run, Finished())  # where the surface waits out Slack's failures, it tries again itself
    except SlackApiError:
        stored = RunStore(redis_conn).load(run.id)  # else the job fails, and RQ's retry delivers again
        assert 0 < stored.surface.answer_streamed < len(answer)
        _reporter(slack_api, redis_conn).event(stored, Finished())
    [message] = slack_api.thread(DM, THREAD)
    assert (
        _markdown(message) == wording.PROGRESS_START + SEPARATOR + answer
        and message["blocks"][-1]["type"] == "context_actions"
    )
    assert [c.status for c in slack_api.calls_to("chat.appendStream")] == [200, 500, 200, 200]


def test_pieces_cut_after_line_breaks_and_cover_the_rest_exactly() -> None:
    text = "\n".join("word " * n for n in range(1, 200))
    for start in (0, 17, len(text) // 2):
        parts = pieces(text, start)
        assert "".join(parts) == text[start:] and all(len(p) <= PIECE_CHARS for p in parts)
        assert all(p.endswith("\n") for p in parts[:-1])
    assert pieces("x" * (PIECE_CHARS + 5), 0) == ["x" * PIECE_CHARS, "xxxxx"]  # no line break: cut at the size


def test_where_slack_refuses_the_feedback_block_the_answer_has_plain_feedback_buttons(redis_conn: redis.Redis) -> None:
    """The stream's stop is refused for its feedback block: the same message gets the answer with two plain
    buttons, whose clicks bot/slack/feedback.py counts like Slack's feedback buttons."""
    from bot.slack.views.answer import FEEDBACK_BUTTON_ACTIONS

    with SlackAPI(context_actions=False) as api:
        run = _run(redis_conn)
        _work_and_finish(_reporter(api, redis_conn), run)
        [message] = api.thread(DM, THREAD)
        assert message["blocks"][0] == {"type": "markdown", "text": ANSWER}
        actions = message["blocks"][-1]
        assert actions["type"] == "actions" and [e["action_id"] for e in actions["elements"]] == list(
            FEEDBACK_BUTTON_ACTIONS
        )
        assert [e["value"] for e in actions["elements"]] == [f"{run.id}:up", f"{run.id}:down"]
        assert all(e["accessibility_label"] for e in actions["elements"])
        assert not message["streaming"]
        # The refused stop, a plain stop, then the whole answer by ts: with Slack's feedback block (refused), then
        # with plain buttons.
        assert [(c.method, c.reply.get("error")) for c in api.calls_to("chat.stopStream", "chat.update")] == [
            ("chat.stopStream", "invalid_blocks"),
            ("chat.stopStream", None),
            ("chat.update", "invalid_blocks"),
            ("chat.update", None),
        ]
