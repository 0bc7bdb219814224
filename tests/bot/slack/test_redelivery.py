"""An answer Slack refuses is handed to a scheduled re-delivery (bot/slack/delivery.py, workers/runs/redelivery.py):
the job schedules `continue_run` with RQ for later, one job id per attempt, and ends; the re-deliveries stop
at ATLAS_SLACK_OUTAGE_SECONDS after the first failure, where the thread is told plainly. Against the Slack
stand-in and the real test Redis; a scheduler holding the queue's lock is what RQ's scheduler writes."""

from __future__ import annotations

import json

import pytest
import redis
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.scheduler import RQScheduler

from bot.slack import delivery, wording
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.slack_reporter_harness import CHANNEL, THREAD, Clock, finish, make_reporter, make_run, tool_event
from workers.agent.events import Finished, StepStarted
from workers.runs.redelivery import Redelivery, job_id
from workers.runs.store import RunStore

QUEUE = "atlas-redelivery-test"


def _answers(api: SlackAPI) -> list[dict]:
    return [m for m in api.thread(CHANNEL, THREAD) if any(b.get("type") == "markdown" for b in m.get("blocks") or [])]


def test_a_refused_answer_is_scheduled_for_later_and_the_budget_ends_the_chain_with_a_note(
    slack_api: SlackAPI,
    redis_conn: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    monkeypatch.setattr(delivery, "IN_SLOT_SECONDS", 0.3)
    redis_conn.set(RQScheduler.get_locking_key(QUEUE), "a-scheduler", ex=60)  # a scheduler serves the queue
    reporter, run = make_reporter(slack_api, redis_conn, Clock(), outage=60.0), make_run(redis_conn)
    reporter.later = Redelivery(redis_conn, QUEUE)
    reporter.event(run, StepStarted(1))
    tool_event(reporter, run, "call_a", "started")  # opens the progress message
    finish(run)
    slack_api.outage(
        "chat.postMessage", seconds=600, when=lambda args: bool(args.get("blocks"))
    )  # answers fail, notes pass

    reporter.event(run, Finished())  # returns after its few seconds of tries: the slot is free
    scheduled = ScheduledJobRegistry(QUEUE, connection=redis_conn)
    assert scheduled.get_job_ids() == [job_id(run.id, 1)]
    job = Job.fetch(job_id(run.id, 1), connection=redis_conn)
    assert job.func_name == "workers.jobs.runs.continue_run" and job.args == (run.id,) and job.retries_left == 2
    stored = RunStore(redis_conn).load(run.id)
    assert (
        stored.surface.outage_tries == 1
        and stored.surface.outage_since is not None
        and stored.surface.undelivered is None
    )
    assert _answers(slack_api) == [] and wording.PROGRESS_ANSWER_UNDELIVERED not in json.dumps(
        slack_api.thread(CHANNEL, THREAD)
    )

    again = RunStore(redis_conn).load(run.id)  # what re-delivery 1 loads: Slack still down
    second = make_reporter(slack_api, redis_conn, Clock(), outage=60.0)
    second.later = Redelivery(redis_conn, QUEUE)
    second.event(again, Finished())
    assert set(scheduled.get_job_ids()) == {job_id(run.id, 1), job_id(run.id, 2)}  # the next attempt, its own id

    last = RunStore(redis_conn).load(run.id)
    last.surface.outage_since = (last.surface.outage_since or 0) - 61  # the outage budget is spent
    RunStore(redis_conn).save(last)
    third = make_reporter(slack_api, redis_conn, Clock(), outage=60.0)
    third.later = Redelivery(redis_conn, QUEUE)
    third.event(RunStore(redis_conn).load(run.id), Finished())
    assert len(scheduled.get_job_ids()) == 2  # no third attempt
    final = RunStore(redis_conn).load(run.id)
    assert final.surface.undelivered == "answer" and final.surface.outage_since is None and _answers(slack_api) == []
    notes = [m["text"] for m in slack_api.thread(CHANNEL, THREAD) if m.get("text") and not m.get("chunks")]
    assert notes == [wording.ANSWER_UNDELIVERED.format(minutes=1, minute_word="minute", run_id=run.id, count=0)]


def test_with_no_scheduler_the_job_waits_the_outage_out_itself(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:  # noqa: F811
    reporter, run = make_reporter(slack_api, redis_conn, Clock(), outage=30.0), make_run(redis_conn)
    reporter.later = Redelivery(redis_conn, QUEUE)  # no scheduler holds the lock: nothing would run a re-delivery
    finish(run)
    slack_api.outage("chat.postMessage", seconds=1.0)
    reporter.event(run, Finished())
    assert len(_answers(slack_api)) == 1 and ScheduledJobRegistry(QUEUE, connection=redis_conn).get_job_ids() == []
    assert RunStore(redis_conn).load(run.id).surface.outage_tries == 0
