"""One approval card per paused call even when the worker dies between the platform taking the card and
the run recording where it went: a real `atlas worker` SIGKILLed while the Slack stand-in holds its answer
to chat.postMessage, another worker retrying the job."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import redis

from bot.discord.surface import DiscordReporter
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.standins.responses_api import Call, reply_calls
from tests.support.approvals_harness import CHANNEL, is_card, pending_id, stack
from tests.support.kills import dies_after
from tests.support.processes import wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.approvals import records as approvals
from workers.runs.state import Origin, PendingCall, RunState
from workers.runs.store import RunStore


def test_a_worker_killed_after_slack_took_the_approval_card_leaves_one_card_the_retry_adopts(
    tmp_path: Path, redis_url: str
) -> None:
    with stack(tmp_path, redis_url) as s:
        s.model.script(reply_calls([Call("add_labels", {"issue_id": 5, "labels": ["docs"]}, "call_k")]))
        thread = s.ask("label #5 docs", ts="1700000500.000100")
        held = s.api.hold("chat.postMessage", lambda args: "atlas_approval" in str(args.get("blocks")), processed=True)
        with worker_process(s.env, "card-a") as worker_a:
            assert held.reached.wait(60), "worker A never posted the card"
            with worker_process(s.env, "card-b"):  # takes the job over once A's lease lapses
                os.killpg(worker_a.pid, signal.SIGKILL)  # Slack has the card; the worker never hears its ts
                worker_a.wait(timeout=10)
                held.release.set()
                (card,) = [m for m in s.api.thread(CHANNEL, thread) if is_card(m)]
                pid = pending_id(card)
                assert approvals.load(s.conn, pid).card_ts == ""  # type: ignore[union-attr]
                wait_for(lambda: approvals.load(s.conn, pid).card_ts, timeout=60, what="the retried job")  # type: ignore[union-attr]
        cards = [m for m in s.api.thread(CHANNEL, thread) if is_card(m)]
        assert [c["ts"] for c in cards] == [
            card["ts"]
        ]  # one card: the retry found the first instead of posting another
        recorded = approvals.load(s.conn, pid)
        assert (
            recorded is not None
            and recorded.card_ts == card["ts"]
            and recorded.card_blocks
            and not recorded.card_posting
        )
        run = RunStore(s.conn).load(pid.split(".")[0])
        assert run.status == "awaiting_approval" and [p.pending_id for p in run.pending] == [pid]


def test_a_discord_approval_card_whose_id_was_lost_is_found_after_its_nonce_lapsed(
    discord_api: DiscordAPI,
    tmp_path: Path,  # noqa: F811
    redis_url: str,
) -> None:
    """Discord enforces a nonce for a few minutes only: a job retried later finds the card in the thread."""
    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    conn = redis.Redis.from_url(redis_url)
    reporter = DiscordReporter.for_settings(settings, RunStore(conn))
    run = _paused_on_discord(conn)
    with dies_after(reporter.rest, "create_message"):  # Discord made the card; the worker died before recording it
        reporter.post_cards(run, run.pending)
    discord_api.advance(15 * 60)  # the retried job comes long after the nonce's few minutes
    (again,) = reporter.post_cards(RunStore(conn).load(run.id), run.pending)
    (card,) = [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")]
    assert again == card["id"] == approvals.load(conn, run.pending[0].pending_id).card_ts  # type: ignore[union-attr]
    assert not discord_api.problems


def test_a_discord_approval_card_describes_the_issue_from_the_workers_tracker(
    discord_api: DiscordAPI,
    tmp_path: Path,  # noqa: F811
    redis_url: str,
) -> None:
    """The card names the issue as the worker's tracker has it (GitHub in a real deployment), not as the
    demo data folder beside the settings does."""
    from tests.support.tools_dataset import ISSUES, write_issues
    from tools import open_corpus
    from tools.demo_tracker import demo_tracker

    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    other = make_dataset(tmp_path / "worker-data")
    issues = [dict(i) for i in ISSUES]
    issues[2]["title"] = "Title as the worker's tracker has it"
    write_issues(other, issues)
    open_corpus(other, tmp_path / "home2")  # builds the folder's issue index, as a worker's start does
    conn = redis.Redis.from_url(redis_url)
    reporter = DiscordReporter.for_settings(
        settings, RunStore(conn), tracker=demo_tracker(other, home=tmp_path / "home2")
    )
    run = _paused_on_discord(conn)
    reporter.post_cards(run, run.pending)
    (card,) = [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")]
    assert "Title as the worker" in json.dumps(card)


def test_no_discord_card_is_posted_for_a_call_already_decided(
    discord_api: DiscordAPI,
    tmp_path: Path,  # noqa: F811
    redis_url: str,
) -> None:
    """A call decided (here: expired) before any card of it was recorded gets no card from a retried job (as on
    Slack)."""
    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    conn = redis.Redis.from_url(redis_url)
    reporter = DiscordReporter.for_settings(settings, RunStore(conn))
    run = _paused_on_discord(conn)
    approvals.expire_step(conn, run.id, 1)
    assert reporter.post_cards(run, run.pending) == []
    assert not [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")]


def _paused_on_discord(conn: redis.Redis) -> RunState:
    """A Discord run paused on one add_labels call for #3, its approval opened and no card recorded yet."""
    run = RunState(
        question="label #3",
        status="awaiting_approval",
        origin=Origin(kind="discord", user="1500000000000000001", channel=di.CHANNEL_ID, team=di.GUILD_ID),
    )
    run.pending = [
        PendingCall(
            pending_id=f"{run.id}.call_0",
            call_id="call_0",
            name="add_labels",
            arguments=json.dumps({"issue_id": 3, "labels": ["bug"]}),
            step=1,
        )
    ]
    RunStore(conn).save(run)
    approvals.open_step(conn, run, run.pending, 3600)
    return run
