"""A SlackReporter on the Slack stand-in and a Slack run in Redis, for the tests of a run's Slack thread
(test_slack_progress, test_slack_answer, test_slack_pause_and_stop)."""

from __future__ import annotations

import json

import redis

from atlas.settings import Settings
from bot.slack.surface import SlackReporter
from tests.standins.slack_api import SlackAPI
from workers.agent.events import ToolCalled
from workers.runs.state import Origin, RunState, StepRecord
from workers.runs.store import RunStore

CHANNEL, THREAD = "C0GENERAL", "1700000000.000100"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_reporter(api: SlackAPI, conn: redis.Redis, clock: Clock | None = None, outage: float = 5.0) -> SlackReporter:
    settings = Settings(
        slack_bot_token=api.token,
        slack_api_url=api.base_url,
        issues_base_url="https://git.example/issues",
        slack_outage_seconds=outage,
        slack_retry_cap_seconds=0.2,
    )
    reporter = SlackReporter.for_settings(settings, RunStore(conn))
    if clock is not None:
        reporter.clock = clock
    return reporter


def make_run(conn: redis.Redis, **fields: object) -> RunState:
    run = RunState(
        question="What does ORB-1202 mean?",
        origin=Origin(
            kind="slack", channel=CHANNEL, thread_ts=THREAD, message_ts=THREAD, user="U0ALICE", team="T0TEST"
        ),
        **fields,
    )  # type: ignore[arg-type]
    RunStore(conn).save(run)
    return run


def finish(run: RunState, answer: str = "It is **PermanentError**; see #4.") -> None:
    run.status, run.answer, run.stop_reason = "done", answer, "done"
    run.mark_ended_here()  # as the loop's `finish` does: this job ended it, nothing posted its answer yet
    run.steps = [StepRecord(index=1), StepRecord(index=2)]
    run.sources = ["#4"]


def tool_event(reporter: SlackReporter, run: RunState, call_id: str, state: str, query: str = "ORB-1202") -> None:
    reporter.event(run, ToolCalled(call_id, "search_issues", json.dumps({"query": query, "state": None}), state))


def streams(api: SlackAPI) -> list[dict]:
    return [m for m in api.thread(CHANNEL, THREAD) if "chunks" in m]
