"""The Bolt app over HTTP with signed requests: mentions, dedup, signatures, Redis down (the slash command
and buttons: test_slack_commands.py)."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest
import redis
from rq import Queue

from bot.slack import wording
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import direct_message, mention, sign
from tests.standins.slack_fixtures import RunningBot, bot, slack_api, slack_settings, start_bot  # noqa: F401
from tests.standins.slack_interactions import block_action, command
from tests.standins.tcp_proxy import TcpProxy
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import SlackSurface

FORBIDDEN = ("Traceback", "xoxb-", "Exception", "Error:")


@pytest.fixture(autouse=True)
def quick_status(monkeypatch: pytest.MonkeyPatch) -> None:
    """The "looking into it" status waits for a worker to start the run; no worker runs here."""
    import bot.slack.mentions

    monkeypatch.setattr(bot.slack.mentions, "STATUS_DELAY_SECONDS", 0.2)


def _runs(conn: redis.Redis) -> list[RunState]:
    store = RunStore(conn)
    return [store.load(k.decode().split(":")[-1]) for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


def _queued(conn: redis.Redis) -> list[str]:
    return Queue("atlas", connection=conn).get_job_ids()


# -- mentions and DMs --------------------------------------------------------------------------


def test_a_mention_is_acked_recorded_and_queued_for_its_thread(bot: RunningBot, redis_conn: redis.Redis) -> None:
    reply = bot.send.event(mention("what does ORB-1202 mean?", ts="1700000100.000200", thread_ts="1700000000.000100"))
    assert reply.status == 200
    [run] = _runs(redis_conn)
    assert run.question == "what does ORB-1202 mean?"  # the bot's own mention removed
    assert run.origin.model_dump() == {
        "kind": "slack",
        "user": "U0ALICE",
        "channel": "C0GENERAL",
        "thread_ts": "1700000000.000100",
        "message_ts": "1700000100.000200",
        "team": "T0TEST",
        "unprompted": False,
    }
    assert run.status == "queued" and run.history == []
    assert _queued(redis_conn) == [f"atlas-run-{run.id}"]
    status = wait_for(lambda: bot.api.calls_to("assistant.threads.setStatus"), what="the working status")
    assert status[0].args["thread_ts"] == "1700000000.000100" and status[0].args["status"] == wording.WORKING_STATUS


@pytest.mark.parametrize("state", ["done", "awaiting_approval", "showing its progress"])
def test_no_status_on_a_run_answered_paused_or_showing_its_progress(
    bot: RunningBot, redis_conn: redis.Redis, state: str
) -> None:
    bot.send.event(mention("quick one", ts="1700000150.000001"))
    [run] = _runs(redis_conn)
    run.status = "running" if state == "showing its progress" else state  # type: ignore[assignment]
    SlackSurface.of(run).progress_open = state == "showing its progress"
    RunStore(redis_conn).save(run)
    _after_ack_settled(bot)
    assert _statuses(bot, "1700000150.000001") == 0


def test_a_run_still_at_its_first_model_call_gets_the_status(bot: RunningBot, redis_conn: redis.Redis) -> None:
    """Started, but no tool call yet (no progress message): the status is what shows Atlas is on it."""
    bot.send.event(mention("slow one", ts="1700000160.000001"))
    [run] = _runs(redis_conn)
    run.status = "running"
    RunStore(redis_conn).save(run)
    wait_for(lambda: _statuses(bot, "1700000160.000001"), what="the working status")


def test_a_top_level_mention_is_answered_in_a_thread_under_it(bot: RunningBot, redis_conn: redis.Redis) -> None:
    bot.send.event(mention("hello there, what is lease_seconds?", ts="1700000200.000001"))
    [run] = _runs(redis_conn)
    assert run.origin.thread_ts == run.origin.message_ts == "1700000200.000001"


def test_a_follow_up_in_the_same_thread_carries_the_earlier_turns(bot: RunningBot, redis_conn: redis.Redis) -> None:
    from workers.runs import conversations
    from workers.runs.state import Turn

    conversations.append(
        redis_conn, "T0TEST", "C0GENERAL", "1700000000.000100", "earlier", Turn(question="q1", answer="a1")
    )
    bot.send.event(mention("and the default?", ts="1700000300.000001", thread_ts="1700000000.000100"))
    [run] = _runs(redis_conn)
    assert [t.model_dump() for t in run.history] == [
        {"question": "q1", "answer": "a1", "asker": None}
    ]  # a turn kept before askers were


def test_a_direct_message_starts_a_run(bot: RunningBot, redis_conn: redis.Redis) -> None:
    assert bot.send.event(direct_message("how do retries work?", ts="1700000400.000001")).status == 200
    [run] = _runs(redis_conn)
    assert run.origin.channel == "D0ALICE" and run.question == "how do retries work?"


def test_signatures_bad_or_stale_are_rejected_and_nothing_is_queued(bot: RunningBot, redis_conn: redis.Redis) -> None:
    payload = json.dumps(mention("sneaky"))
    forged = bot.send.post(payload, "application/json", signature="v0=" + "0" * 64)
    stale_at = int(time.time()) - 600
    stale = bot.send.post(
        payload, "application/json", timestamp=stale_at, signature=sign(bot.send.secret, stale_at, payload)
    )
    wrong_secret = bot.send.post(
        payload, "application/json", signature=sign("not-the-secret", int(time.time()), payload)
    )
    assert (forged.status, stale.status, wrong_secret.status) == (401, 401, 401)
    assert _runs(redis_conn) == [] and _queued(redis_conn) == []
    assert bot.api.calls_to("chat.postMessage", "assistant.threads.setStatus") == []


def _after_ack_settled(bot: RunningBot) -> None:
    """Send one more mention and wait for its status: earlier after-ack work has had its turn."""
    sentinel = mention("sentinel", channel="C0SENTINEL")
    bot.send.event(sentinel)
    wait_for(
        lambda: [c for c in bot.api.calls_to("assistant.threads.setStatus") if c.args["channel_id"] == "C0SENTINEL"],
        what="the sentinel's status",
    )


def _statuses(bot: RunningBot, thread_ts: str) -> int:
    return len([c for c in bot.api.calls_to("assistant.threads.setStatus") if c.args["thread_ts"] == thread_ts])


def test_slack_retries_of_an_event_give_one_run(bot: RunningBot, redis_conn: redis.Redis) -> None:
    event = mention("what is ORB-1101?", ts="1700000050.000001")
    replies = [bot.send.event(event, retry_num=n) for n in (None, 1, 2, 3)]
    assert [r.status for r in replies] == [200, 200, 200, 200]
    assert len(_runs(redis_conn)) == 1 and len(_queued(redis_conn)) == 1
    _after_ack_settled(bot)
    assert _statuses(bot, "1700000050.000001") == 1  # the retries were acked and nothing else


def test_one_message_delivered_as_mention_and_as_dm_message_gives_one_run(
    bot: RunningBot, redis_conn: redis.Redis
) -> None:
    as_mention = mention("ORB-1402?", channel="D0ALICE", ts="1700000500.000001")
    as_message = direct_message("<@UATLAS> ORB-1402?", ts="1700000500.000001")
    assert bot.send.event(as_mention).status == 200
    assert bot.send.event(as_message).status == 200
    assert len(_runs(redis_conn)) == 1 and len(_queued(redis_conn)) == 1


def test_concurrent_duplicate_deliveries_give_one_run_and_a_later_retry_is_acked(
    bot: RunningBot, redis_conn: redis.Redis
) -> None:
    event = mention("concurrent?", ts="1700000600.000001")
    with ThreadPoolExecutor(12) as pool:
        statuses = list(pool.map(lambda n: bot.send.event(event, retry_num=n or None).status, range(12)))
    assert set(statuses) <= {200, 503} and 200 in statuses  # in flight elsewhere: 503, Slack retries later
    assert bot.send.event(event, retry_num=3).status == 200
    assert len(_runs(redis_conn)) == 1 and len(_queued(redis_conn)) == 1
    _after_ack_settled(bot)
    assert _statuses(bot, "1700000600.000001") == 1


def test_messages_from_bots_edits_and_channel_chatter_never_start_runs(
    bot: RunningBot, redis_conn: redis.Redis
) -> None:
    events = [
        direct_message("I am a bot", bot_id="B0OTHER"),
        direct_message("I am Atlas itself", user="UATLAS", bot_id="BATLAS"),
        mention("a bot mentioning atlas", bot_id="B0OTHER"),
        direct_message("edited", subtype="message_changed"),
        direct_message("someone joined", subtype="channel_join"),
        {**direct_message("channel chatter"), "event": {**direct_message("x")["event"], "channel_type": "channel"}},
    ]
    assert [bot.send.event(e).status for e in events] == [200] * len(events)
    assert _runs(redis_conn) == [] and _queued(redis_conn) == []


def test_an_empty_mention_gets_a_hint_once_and_no_run(bot: RunningBot, redis_conn: redis.Redis) -> None:
    event = mention("  ", ts="1700000700.000001")
    assert bot.send.event(event).status == 200
    assert bot.send.event(event, retry_num=1).status == 200
    [hint] = wait_for(lambda: bot.api.thread("C0GENERAL", "1700000700.000001"), what="the hint")
    assert hint["text"] == wording.EMPTY_QUESTION
    _after_ack_settled(bot)
    assert len(bot.api.thread("C0GENERAL", "1700000700.000001")) == 1
    assert [r.question for r in _runs(redis_conn)] == ["sentinel"]


def test_url_verification_and_health_check(bot: RunningBot) -> None:
    reply = bot.send.event({"token": "t", "challenge": "c-123", "type": "url_verification"})
    assert reply.status == 200 and reply.json()["challenge"] == "c-123"
    parts = urlsplit(bot.url)
    with urlopen(f"http://{parts.hostname}:{parts.port}/healthz", timeout=5) as response:
        assert response.status == 200


# -- Redis down --------------------------------------------------------------------------------


@pytest.fixture
def fragile_bot(slack_api: SlackAPI, redis_url: str, tmp_path: Path):  # noqa: F811
    """A bot whose Redis connection goes through a proxy the test can cut and restore."""
    with TcpProxy.for_redis(redis_url) as proxy:
        settings = slack_settings(slack_api, proxy.url(), tmp_path / "home", data_dir=make_dataset(tmp_path / "data"))
        running, server = start_bot(settings, slack_api)
        try:
            yield running, proxy
        finally:
            server.close()
            running.deps.background.shutdown(wait=True)


def test_redis_down_at_mention_time_the_question_is_kept_and_queued_when_redis_returns(
    fragile_bot, redis_conn: redis.Redis
) -> None:
    """No Slack retry is needed: the web process keeps the question on disk and queues it itself."""
    running, proxy = fragile_bot
    proxy.down()
    event = mention("anyone there?", ts="1700000800.000001")
    assert running.send.event(event).status == 200  # kept: Slack must not depend on retrying
    notes = wait_for(lambda: running.api.thread("C0GENERAL", "1700000800.000001"), what="the note")
    assert [n["text"] for n in notes] == [wording.KEPT_FOR_LATER]
    assert (
        running.send.event(event, retry_num=1).status == 200
    )  # a retry anyway: the same kept question, no second note
    assert len(list((running.settings.home / "spool").glob("*.json"))) == 1
    # the app keeps serving what needs no Redis
    looked_up = running.send.form(command("issue 4"))
    assert looked_up.status == 200 and "PermanentError not retried" in looked_up.body
    clicked = running.send.interaction(block_action("atlas_feedback", "0123456789abcdef:up"))
    assert clicked.status == 200
    wait_for(lambda: running.api.ephemerals(), what="the ephemeral note")
    assert running.api.ephemerals()[0]["text"] == wording.EPHEMERAL_UNAVAILABLE
    assert _runs(redis_conn) == []

    proxy.up()  # no Slack retry after this: the drainer queues the kept question by itself
    [run] = wait_for(lambda: _runs(redis_conn), timeout=30, what="the kept question queued")
    assert run.question == "anyone there?" and _queued(redis_conn) == [f"atlas-run-{run.id}"]
    wait_for(lambda: not list((running.settings.home / "spool").glob("*.json")), what="the spool emptied")
    assert (
        running.send.event(event, retry_num=2).status == 200 and len(_queued(redis_conn)) == 1
    )  # a late retry: duplicate
    assert len(running.api.thread("C0GENERAL", "1700000800.000001")) == 1  # the note, once


def test_an_enqueue_that_fails_on_redis_is_kept_and_queued_once(
    bot: RunningBot, redis_conn: redis.Redis, monkeypatch
) -> None:
    import bot.slack.mentions as mentions_module

    event = mention("half done?", ts="1700000900.000001")
    real = mentions_module.record_and_enqueue
    monkeypatch.setattr(mentions_module, "record_and_enqueue", _raise(redis.ConnectionError("lost the connection")))
    assert bot.send.event(event).status == 200  # kept on disk
    assert _runs(redis_conn) == []  # the claim released, nothing half-written
    monkeypatch.setattr(mentions_module, "record_and_enqueue", real)
    [run] = wait_for(lambda: _runs(redis_conn), timeout=30, what="the kept question queued")
    assert _queued(redis_conn) == [f"atlas-run-{run.id}"]
    assert bot.send.event(event, retry_num=1).status == 200 and len(_queued(redis_conn)) == 1


def test_a_lost_confirmation_is_completed_without_a_second_job(bot: RunningBot, redis_conn: redis.Redis) -> None:
    """Recorded and queued, but the claim's confirmation never landed: the retry confirms and acks."""
    event = mention("confirmed?", ts="1700000950.000001")
    assert bot.send.event(event).status == 200
    redis_conn.delete(*redis_conn.scan_iter("atlas:claim:*"))
    assert bot.send.event(event, retry_num=1).status == 200
    assert len(_runs(redis_conn)) == 1 and len(_queued(redis_conn)) == 1
    assert {redis_conn.get(k) for k in redis_conn.scan_iter("atlas:claim:*")} == {b"enqueued"}


def _raise(exc: Exception):  # noqa: ANN202
    def fail(*args, **kwargs):  # noqa: ANN002, ANN003
        raise exc

    return fail
