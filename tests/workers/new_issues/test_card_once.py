"""One triage card per issue even when the worker dies between posting it and saving its ts (issue 24):
a real `atlas worker` SIGKILLed while Slack's answer to chat.postMessage is in flight, another one
retrying the job, the Slack stand-in's triage channel."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
import redis
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.discord.surface import DiscordReporter
from bot.slack import triage_card
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.kills import dies_after
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from tests.support.triage_inbox_harness import CHANNEL, actions, inbox
from tests.workers.new_issues.test_new_issue_triage import DUP_BODY, DUP_TITLE
from workers.approvals import records as approvals
from workers.new_issues import claim
from workers.runs.state import Origin, PendingCall, RunState
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageAction, TriageRecord


def test_a_worker_killed_after_slack_took_the_card_leaves_one_card_the_retry_adopts(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url) as box:
        held = box.slack.hold("chat.postMessage", lambda args: args.get("channel") == CHANNEL, processed=True)
        issue = box.open_issue(DUP_TITLE, DUP_BODY)
        with box.worker("once-a") as worker_a:
            assert held.reached.wait(60), "worker A never posted the card"
            with box.worker("once-b"):  # starts while A is held; takes the job over once A's lease lapses
                os.killpg(worker_a.pid, signal.SIGKILL)  # Slack has the card; the worker never hears its ts
                worker_a.wait(timeout=10)
                held.release.set()
                run_id = claim.run_of(box.conn, "acme/rocket", issue["number"]) or ""
                assert box.run(run_id).triage.card_ts == ""  # type: ignore[union-attr]
                run = wait_for(
                    lambda: (r := box.run(run_id)).triage and r.triage.card_ts and r, timeout=60, what="the retried job"
                )
                # the retry saves the card's ts, then brings the card up to date: wait for the edit, not a clock
                wait_for(
                    lambda: [m for m in box.messages() if m.get("edits", 0) >= 1],
                    timeout=60,
                    what="the adopted card's update",
                )
        (card,) = box.messages()  # one card: the retry found the first one instead of posting another
        assert run.triage.card_ts == card["ts"] and card["edits"] >= 1  # adopted and brought up to date
        assert {"duplicates", "labels"} <= set(actions(card))
        for call in run.pending:
            assert approvals.load(box.conn, call.pending_id).card_ts == card["ts"]  # type: ignore[union-attr]


def test_a_discord_card_whose_id_was_lost_is_found_after_its_nonce_lapsed(
    discord_api: DiscordAPI,
    tmp_path: Path,  # noqa: F811
    redis_url: str,
) -> None:
    """Discord enforces a nonce for a few minutes only: a job retried later finds the card in the channel."""
    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    conn = redis.Redis.from_url(redis_url)
    reporter = DiscordReporter.for_settings(settings, RunStore(conn))
    action = TriageAction(
        kind="labels",
        mode="draft",
        tool="add_labels",
        arguments={"issue_id": 3, "labels": ["bug"]},
        call_id="triage-labels",
        step=1,
    )
    run = RunState(
        question="triage #3",
        status="awaiting_approval",
        triage=TriageRecord(repo="demo", issue=3, title="t", actions=[action]),
        origin=Origin(kind="discord", user="1500000000000000001", channel=di.CHANNEL_ID, team=di.GUILD_ID),
    )
    run.pending = [
        PendingCall(
            pending_id=f"{run.id}.triage-labels",
            call_id="triage-labels",
            name="add_labels",
            arguments=json.dumps(action.arguments),
            step=1,
        )
    ]
    RunStore(conn).save(run)
    approvals.open_step(conn, run, run.pending, 3600)
    with dies_after(reporter.rest, "create_message"):  # Discord made the card; the worker died before recording it
        reporter.triage_card(run)
    discord_api.advance(15 * 60)  # the retried job comes long after the nonce's few minutes
    retried = RunStore(conn).load(run.id)
    reporter.triage_card(retried)
    (card,) = [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")]
    assert RunStore(conn).load(run.id).triage.card_ts == card["id"]  # type: ignore[union-attr]
    assert approvals.load(conn, run.pending[0].pending_id).card_ts == card["id"]  # type: ignore[union-attr]
    assert not discord_api.problems


def _slack_run(conn: redis.Redis) -> RunState:
    action = TriageAction(
        kind="labels",
        mode="draft",
        tool="add_labels",
        arguments={"issue_id": 3, "labels": ["bug"]},
        call_id="triage-labels",
        step=1,
    )
    run = RunState(
        question="triage #3",
        status="awaiting_approval",
        triage=TriageRecord(repo="demo", issue=3, title="t", actions=[action]),
        origin=Origin(kind="slack", channel=CHANNEL, team="T0TEST"),
    )
    run.pending = [
        PendingCall(
            pending_id=f"{run.id}.triage-labels",
            call_id="triage-labels",
            name="add_labels",
            arguments=json.dumps(action.arguments),
            step=1,
        )
    ]
    RunStore(conn).save(run)
    approvals.open_step(conn, run, run.pending, 3600)
    return run


def test_unreadable_history_posts_again_and_a_slack_blip_retries_the_job_instead(
    slack_api: SlackAPI, redis_url: str
) -> None:  # noqa: F811
    """Without channels:history the retry can only post again (as approval cards do); while Slack is failing it
    posts nothing: the job is retried and looks again."""
    conn = redis.Redis.from_url(redis_url)
    store = RunStore(conn)
    client = WebClient(token=slack_api.token, base_url=slack_api.base_url, retry_handlers=[])
    for error, cards in (("missing_scope", 2), (None, 1)):
        run = _slack_run(conn)
        with dies_after(client, "chat_postMessage"):
            triage_card.show(client, client, store, run, None)
        if error:
            slack_api.refuse("conversations.history", error)
        else:
            slack_api.server_error("conversations.history")
            with pytest.raises(SlackApiError):  # Slack failing: no second card, the job is retried
                triage_card.show(client, client, store, store.load(run.id), None)
        triage_card.show(client, client, store, store.load(run.id), None)
        mine = [
            m
            for (channel, _), m in slack_api.messages.items()
            if channel == CHANNEL and (m.get("metadata") or {}).get("event_payload", {}).get("run_id") == run.id
        ]
        assert len(mine) == cards, error
