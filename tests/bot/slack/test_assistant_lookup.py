"""A run asks Redis whether its thread is an assistant thread only when it can be one (issue 40): Slack's assistant
threads live in the app's DM (message.im), so a run in a channel's thread makes no lookup."""

from __future__ import annotations

import redis

from bot.slack import assistant_threads
from bot.slack.assistant_reporter import attach_context
from workers.runs.state import Origin, RunState
from workers.runs.surfaces import SlackSurface


def _run(channel: str) -> RunState:
    return RunState(
        question="How do retries back off?",
        origin=Origin(kind="slack", channel=channel, user="U1", thread_ts="1700000000.000100", team="T1"),
    )


def _calls(conn: redis.Redis) -> int:
    return sum(int(v["calls"]) for k, v in conn.info("commandstats").items() if k != "cmdstat_info")


def test_a_dm_thread_recorded_as_an_assistant_thread_is_marked_and_a_channel_thread_asks_nothing(
    redis_conn: redis.Redis,
) -> None:
    for channel in ("D0ALICE", "C0GENERAL"):
        assistant_threads.start(redis_conn, channel, "1700000000.000100", {"channel_id": "C0RELEASES"})
    dm = _run("D0ALICE")
    attach_context(redis_conn, dm)
    assert SlackSurface.of(dm).assistant_thread and dm.context_channel == "C0RELEASES"
    in_channel = _run("C0GENERAL")
    before = _calls(redis_conn)
    attach_context(redis_conn, in_channel)
    assert _calls(redis_conn) == before and not SlackSurface.of(in_channel).assistant_thread
