"""A run's answer in its Slack thread (bot/slack/surface.py, bot/slack/answer.py) against the Slack
stand-in: posted exactly once, split within Slack's limits, through rate limits and outages, text only
when blocks are refused."""

from __future__ import annotations

import json
import time

import pytest
import redis

from bot.slack import wording
from bot.slack.mentions import STATUS_DELAY_SECONDS
from bot.slack.thread_answer import STATUS_UNSEEN_SECONDS
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.kills import dies_after
from tests.support.slack_reporter_harness import CHANNEL, THREAD, Clock, finish, make_reporter, make_run, tool_event
from workers.agent.events import Finished, StepStarted
from workers.runs import conversations
from workers.runs.store import RunStore


def test_a_redelivered_answer_updates_instead_of_posting_again(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = make_run(redis_conn)
    finish(run)
    make_reporter(slack_api, redis_conn).event(run, Finished())
    again = RunStore(redis_conn).load(run.id)  # what a retried job would load
    make_reporter(slack_api, redis_conn).event(again, Finished())
    assert len(slack_api.calls_to("chat.postMessage")) == 1
    assert slack_api.calls_to("chat.update") == []  # same content: nothing to change
    again.cost_usd = 0.5  # settled differently on the retry: the footer changes, the message is edited
    make_reporter(slack_api, redis_conn).event(again, Finished())
    assert len(slack_api.calls_to("chat.postMessage")) == 1 and len(slack_api.calls_to("chat.update")) == 1
    assert len(slack_api.thread(CHANNEL, THREAD)) == 1
    assert conversations.turns(redis_conn, "T0TEST", CHANNEL, THREAD) == [
        conversations.Turn(question=run.question, answer=run.answer, asker=run.origin.user)
    ]


def test_a_long_answer_posts_several_messages_within_limits(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = make_run(redis_conn)
    paragraph = "Leases are renewed by heartbeats while the job runs. " * 30
    finish(run, "\n\n".join([paragraph] * 25))
    make_reporter(slack_api, redis_conn).event(run, Finished())
    posts = slack_api.calls_to("chat.postMessage")
    assert len(posts) >= 2 and all(p.reply["ok"] for p in posts)  # the stand-in enforces Slack's limits
    assert [p.args["thread_ts"] for p in posts] == [THREAD] * len(posts)
    assert RunStore(redis_conn).load(run.id).surface.answer_ts == [p.reply["ts"] for p in posts]


def test_a_shorter_redelivered_answer_deletes_the_leftovers_even_one_already_gone(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    run = make_run(redis_conn)
    paragraph = "Leases are renewed by heartbeats while the job runs. " * 30
    finish(run, "\n\n".join([paragraph] * 25))
    make_reporter(slack_api, redis_conn).event(run, Finished())
    again = RunStore(redis_conn).load(run.id)
    first = list(again.surface.answer_ts)
    assert len(first) >= 3
    slack_api.messages[(CHANNEL, first[-1])]["deleted"] = True  # a person deleted the last one meanwhile
    slack_api.messages.pop((CHANNEL, first[-1]))
    finish(again, "Shorter now.")
    make_reporter(slack_api, redis_conn).event(again, Finished())  # no SlackApiError for the one already gone
    assert RunStore(redis_conn).load(run.id).surface.answer_ts == first[:1]
    deleted = [c.args["ts"] for c in slack_api.calls_to("chat.delete")]
    assert deleted == first[1:]


def test_rate_limited_calls_are_retried_after_retry_after(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = make_run(redis_conn)
    finish(run)
    slack_api.rate_limit("chat.postMessage", times=1, retry_after=0)
    make_reporter(slack_api, redis_conn).event(run, Finished())
    statuses = [c.status for c in slack_api.calls_to("chat.postMessage")]
    assert statuses == [429, 200]
    assert len(slack_api.thread(CHANNEL, THREAD)) == 1


def test_an_answer_is_posted_once_after_a_slack_outage(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    """Slack down for a while: the answer waits it out with backoff, appears once, and only then does the
    progress message say that the answer is below."""
    reporter, run = make_reporter(slack_api, redis_conn, Clock()), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # a tool call opens the progress message
    finish(run)
    slack_api.outage("chat.postMessage", seconds=1.5)
    reporter.event(run, Finished())
    posts = slack_api.calls_to("chat.postMessage")
    assert [c.status for c in posts][-1] == 200 and {c.status for c in posts[:-1]} == {503} and len(posts) >= 3
    assert posts[-1].at - posts[0].at >= 1.4  # spread over the outage, not three tries in milliseconds
    progress, answer = slack_api.thread(CHANNEL, THREAD)
    assert answer["blocks"][0]["text"] == "It is **PermanentError**; see #4."
    [stop] = slack_api.calls_to("chat.stopStream")
    assert stop.at > posts[-1].at  # "the answer is below" only once it is
    assert wording.PROGRESS_DONE.format(steps=2, step_word="steps") in json.dumps(progress["chunks"])


def test_an_answer_slack_never_takes_is_kept_and_the_thread_told_plainly(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    reporter, run = make_reporter(slack_api, redis_conn, Clock(), outage=1.0), make_run(redis_conn)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # a tool call opens the progress message
    finish(run)
    slack_api.outage(
        "chat.postMessage", seconds=60, when=lambda args: bool(args.get("blocks"))
    )  # the answer, not plain notes
    reporter.event(run, Finished())
    progress, note = slack_api.thread(CHANNEL, THREAD)
    assert note["text"] == wording.ANSWER_UNDELIVERED.format(minutes=1, minute_word="minute", run_id=run.id, count=0)
    closing = json.dumps(progress["chunks"])
    assert wording.PROGRESS_ANSWER_UNDELIVERED in closing and "below" not in closing
    stored = RunStore(redis_conn).load(run.id)
    assert stored.answer == "It is **PermanentError**; see #4." and stored.surface.undelivered == "answer"


def test_a_lasting_refusal_is_not_retried(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:
    run = make_run(redis_conn)
    finish(run)
    slack_api.refuse("chat.postMessage", "channel_not_found", times=5)
    make_reporter(slack_api, redis_conn).event(run, Finished())
    assert len(slack_api.calls_to("chat.postMessage")) == 2  # the answer once, then one try at the note


@pytest.mark.parametrize("error", ["invalid_blocks", "msg_blocks_too_long"])
def test_blocks_slack_refuses_fall_back_to_text(slack_api: SlackAPI, redis_conn: redis.Redis, error: str) -> None:
    run = make_run(redis_conn)
    finish(run)
    slack_api.refuse("chat.postMessage", error)
    make_reporter(slack_api, redis_conn).event(run, Finished())
    [message] = slack_api.thread(CHANNEL, THREAD)
    assert message["blocks"] == [] and message["text"].startswith("It is **PermanentError**")


def _cleared(api: SlackAPI) -> list[str]:
    return [c.args["thread_ts"] for c in api.calls_to("assistant.threads.setStatus") if c.args.get("status") == ""]


def test_the_looking_into_it_status_is_cleared_only_where_the_web_process_may_have_shown_it(
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    """The web shows it on a run still unanswered a second after taking it: an answer posted sooner
    leaves it alone (a Web API call fewer); one posted later clears it, whichever job posts it."""
    assert STATUS_UNSEEN_SECONDS <= STATUS_DELAY_SECONDS / 2  # the rest is the margin for the two clocks
    fresh = make_run(redis_conn)
    reporter = make_reporter(slack_api, redis_conn)
    reporter.event(fresh, StepStarted(1))
    finish(fresh)
    reporter.event(fresh, Finished())
    assert len(slack_api.thread(CHANNEL, THREAD)) == 1 and _cleared(slack_api) == []

    late_thread = "1700000099.000100"
    late = make_run(
        redis_conn, created_at=time.time() - 2 * STATUS_UNSEEN_SECONDS
    )  # the model took a while, or every worker was busy
    late.origin.thread_ts = late.origin.message_ts = late_thread
    reporter = make_reporter(slack_api, redis_conn)
    reporter.event(late, StepStarted(1))
    tool_event(reporter, late, "call_a", "started")
    finish(late)
    reporter.event(late, Finished())
    assert _cleared(slack_api) == [late_thread]

    again = RunStore(redis_conn).load(late.id)  # a re-delivered answer, by another job
    again.cost_usd = 0.5  # settled differently on the retry: the answer is edited in place
    make_reporter(slack_api, redis_conn).event(again, Finished())
    assert _cleared(slack_api) == [late_thread, late_thread]


def test_an_answer_slack_took_from_a_worker_that_died_before_saving_its_ts_is_adopted_not_posted_again(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    """The window the chaos bench hit (a mention answered twice): SIGKILLed between chat.postMessage and the save
    of its ts, the retried job found no ts and posted the answer a second time."""
    run = make_run(redis_conn)
    finish(run)
    killed = make_reporter(slack_api, redis_conn)
    with dies_after(killed.thread.messages.create_client, "chat_postMessage"):
        killed.event(run, Finished())
    assert RunStore(redis_conn).load(run.id).surface.answer_ts == []  # Slack has it; the run never heard its ts
    again = RunStore(redis_conn).load(run.id)  # the retried job, on another worker
    again.cost_usd = 0.5  # settled differently on the retry: the adopted message is brought up to date
    make_reporter(slack_api, redis_conn).event(again, Finished())
    answers = slack_api.thread(CHANNEL, THREAD)
    assert len(answers) == 1 and len(slack_api.calls_to("chat.postMessage")) == 1
    assert RunStore(redis_conn).load(run.id).surface.answer_ts == [answers[0]["ts"]]
    assert [c.args["ts"] for c in slack_api.calls_to("chat.update")] == [answers[0]["ts"]]


def test_the_job_that_ended_the_run_posts_its_answer_after_one_save_and_reads_no_history(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    """The run's end is the first message's intent: the job that ended it saves only where the answer went."""
    run = make_run(redis_conn)
    finish(run)
    reporter = make_reporter(slack_api, redis_conn)
    saves: list[list[str]] = []
    store = reporter.thread.messages.store
    saved = store.save
    store.save = lambda r: (saves.append(list(r.surface.answer_ts)), saved(r))[1]  # type: ignore[method-assign]
    reporter.event(run, Finished())
    [answer] = slack_api.thread(CHANNEL, THREAD)
    assert saves == [[answer["ts"]]]
    assert slack_api.calls_to("conversations.replies") == []


def test_a_run_whose_ending_job_died_before_posting_is_answered_once_by_the_next(
    slack_api: SlackAPI, redis_conn: redis.Redis
) -> None:
    """Saved final, then SIGKILLed before chat.postMessage: the next job looks in the thread, finds nothing, posts."""
    run = make_run(redis_conn)
    finish(run)
    RunStore(redis_conn).save(run)  # the loop's last save; the worker died right after it
    again = RunStore(redis_conn).load(run.id)
    make_reporter(slack_api, redis_conn).event(again, Finished())
    assert len(slack_api.thread(CHANNEL, THREAD)) == 1 and len(slack_api.calls_to("chat.postMessage")) == 1
    assert len(slack_api.calls_to("conversations.replies")) == 1  # it looked before posting
