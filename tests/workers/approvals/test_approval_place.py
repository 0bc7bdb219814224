"""An approval is decided only where its card lives (issue 22, item 14), and a card posted twice has one
live copy (item 25).

Every click here is a real signed-payload shape through the real handlers (Bolt for Slack, the
interactions endpoint for Discord) on the real Redis; a click that comes from another platform, another
workspace or guild, another channel or another message than the card's changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import redis
from slack_sdk import WebClient

from bot.discord.approvers import MANAGE_GUILD
from bot.discord.interactions import Interactions
from bot.discord.views.components import APPROVE_PREFIX
from bot.lookups import Lookups
from bot.slack import cards as approval_cards
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.standins.slack_api import TEAM
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import ASKER, CHANNEL, MAINTAINER, Stack, is_card, pending_id, stack
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from tools.demo_tracker import demo_tracker
from workers.approvals import records as approvals
from workers.runs.state import Origin, PendingCall, RunState
from workers.runs.store import RunStore

LABEL = ("add_labels", {"issue_id": 3, "labels": ["bug"]})
SERVER_MANAGER = "1500000000000000042"  # Manage Server in *their* guild: an approver there, by default


def _status(conn: redis.Redis, pending: str) -> str:
    found = approvals.load(conn, pending)
    assert found is not None
    return found.status


def _slack_click(
    s: Stack, card: dict[str, Any], *, channel: str = CHANNEL, team: str = TEAM, message_ts: str | None = None
) -> None:
    payload = block_action(
        APPROVE_ACTION,
        pending_id(card),
        user=MAINTAINER,
        channel=channel,
        message_ts=message_ts or card["ts"],
        thread_ts=card.get("thread_ts"),
    )
    payload["team"]["id"] = payload["user"]["team_id"] = team
    payload["message"] = {"ts": message_ts or card["ts"], "thread_ts": card.get("thread_ts"), "blocks": card["blocks"]}
    assert s.bot.send.interaction(payload).status == 200


def _settled(s: Stack, pending: str) -> None:
    """The click was answered: a note to the clicker, or (wrongly) a decision."""
    wait_for(
        lambda: [n for n in s.api.ephemerals() if n.get("user") == MAINTAINER] or _status(s.conn, pending) != "pending",
        what="the click's outcome",
    )


def test_a_signed_discord_click_carrying_a_slack_cards_id_decides_nothing(
    discord_api: DiscordAPI,  # noqa: F811
    tmp_path: Path,
    redis_url: str,
) -> None:
    with stack(tmp_path, redis_url) as s:
        (card,) = s.pause([LABEL])
        settings = discord_settings(discord_api, redis_url, tmp_path / "dhome", make_dataset(tmp_path / "ddata"))
        endpoint = Interactions(settings, s.conn, Lookups.open(settings.data_dir, settings.home, semantic=False))
        reply = endpoint.handle(
            di.click(APPROVE_PREFIX + pending_id(card), di.member(SERVER_MANAGER, permissions=MANAGE_GUILD))
        )
        assert reply["type"] == 4 and reply["data"]["flags"] == 64  # an ephemeral note, not the card updated
        assert "Approved" not in reply["data"]["content"]
        assert _status(s.conn, pending_id(card)) == "pending"
        assert s.resume_job(s.run_of(card).id, 1) is None


@pytest.mark.parametrize("where", ["another channel", "another workspace", "another message"])
def test_a_slack_click_from_anywhere_but_the_card_decides_nothing(where: str, tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url) as s:
        (card,) = s.pause([LABEL])
        if where == "another channel":
            _slack_click(s, card, channel="C0ELSEWHERE")
        elif where == "another workspace":
            _slack_click(s, card, team="T0OTHER")
        else:
            _slack_click(s, card, message_ts="1700000999.000999")
        _settled(s, pending_id(card))
        assert _status(s.conn, pending_id(card)) == "pending"
        _slack_click(s, card)  # from the card itself: decided
        wait_for(lambda: _status(s.conn, pending_id(card)) == "approved", what="the decision")


def discord_card(conn: redis.Redis) -> tuple[RunState, PendingCall, dict[str, Any]]:
    """A Discord run paused on one call, its card posted in the test channel of the test guild."""
    run = RunState(
        question="triage #3",
        status="awaiting_approval",
        origin=Origin(kind="discord", user="1500000000000000001", channel=di.CHANNEL_ID, team=di.GUILD_ID),
    )
    call = PendingCall(
        pending_id=f"{run.id}.call_0", call_id="call_0", name=LABEL[0], arguments=json.dumps(LABEL[1]), step=1
    )
    run.pending = [call]
    RunStore(conn).save(run)
    assert approvals.open_step(conn, run, run.pending, 3600)
    card = {"id": "1400000000000000001", "channel_id": di.CHANNEL_ID, "content": "card"}
    approvals.attach_card(conn, call.pending_id, di.CHANNEL_ID, card["id"], json.dumps({"content": "card"}))
    return run, call, card


def test_a_discord_click_from_another_guild_decides_nothing(
    discord_api: DiscordAPI,
    tmp_path: Path,  # noqa: F811
    redis_url: str,
) -> None:
    maintainer = "1500000000000000011"
    settings = discord_settings(
        discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"), discord_approvers=(maintainer,)
    )
    conn = redis.Redis.from_url(redis_url)
    endpoint = Interactions(settings, conn, Lookups.open(settings.data_dir, settings.home, semantic=False))
    run, call, card = discord_card(conn)
    foreign = di.click(APPROVE_PREFIX + call.pending_id, di.member(maintainer), message=card)
    foreign["guild_id"] = "1200000000000000999"
    assert endpoint.handle(foreign)["data"].get("flags") == 64
    assert _status(conn, call.pending_id) == "pending"
    reply = endpoint.handle(di.click(APPROVE_PREFIX + call.pending_id, di.member(maintainer), message=card))
    assert reply["type"] == 7 and _status(conn, call.pending_id) == "approved"


class Killed(BaseException):
    """The worker dies here (a SIGKILL ends the process; nothing after it runs)."""


def _killed_after_posting(s: Stack, monkeypatch: pytest.MonkeyPatch, thread: str) -> tuple[RunState, WebClient]:
    """A paused run whose worker posted its card and was killed before recording it."""
    run = RunState(
        question="triage",
        status="awaiting_approval",
        origin=Origin(kind="slack", user=ASKER, channel=CHANNEL, thread_ts=thread, message_ts=thread, team=TEAM),
    )
    run.pending = [
        PendingCall(
            pending_id=f"{run.id}.call_0", call_id="call_0", name=LABEL[0], arguments=json.dumps(LABEL[1]), step=1
        )
    ]
    RunStore(s.conn).save(run)
    approvals.open_step(s.conn, run, run.pending, 3600)
    client = WebClient(token=s.api.token, base_url=s.api.base_url)

    def killed(*args: Any, **kwargs: Any) -> None:
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(approvals, "attach_card", killed)
        with pytest.raises(Killed):
            approval_cards.post(client, run, run.pending, conn=s.conn, tracker=demo_tracker(s.data, home=s.home))
    return run, client


def test_a_card_posted_again_after_a_kill_leaves_only_the_new_one_live(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 25: killed between chat.postMessage and recording the card, a retry that may not read the thread
    (no channels:history: it cannot find the first card by its marker) posts it again; the first copy's
    buttons decide nothing, the second's do."""
    with stack(tmp_path, redis_url) as s:
        run, client = _killed_after_posting(s, monkeypatch, "1700000300.000100")
        s.api.refuse("conversations.replies", "missing_scope")
        approval_cards.post(
            client, run, run.pending, conn=s.conn, tracker=demo_tracker(s.data, home=s.home)
        )  # the retried job
        first, second = [m for m in s.api.thread(CHANNEL, "1700000300.000100") if is_card(m)]
        _slack_click(s, first)
        _settled(s, run.pending[0].pending_id)
        assert _status(s.conn, run.pending[0].pending_id) == "pending"
        _slack_click(s, second)
        wait_for(lambda: _status(s.conn, run.pending[0].pending_id) == "approved", what="the decision")


def test_a_click_on_the_unrecorded_card_records_it_and_the_retry_posts_none(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with stack(tmp_path, redis_url) as s:
        run, client = _killed_after_posting(s, monkeypatch, "1700000400.000100")
        (first,) = [m for m in s.api.thread(CHANNEL, "1700000400.000100") if is_card(m)]
        _slack_click(s, first)
        wait_for(lambda: _status(s.conn, run.pending[0].pending_id) == "approved", what="the decision")
        approval_cards.post(
            client, run, run.pending, conn=s.conn, tracker=demo_tracker(s.data, home=s.home)
        )  # the retried job
        assert [m["ts"] for m in s.api.thread(CHANNEL, "1700000400.000100") if is_card(m) or m.get("edits")] == [
            first["ts"]
        ]
        assert approvals.load(s.conn, run.pending[0].pending_id).card_ts == first["ts"]  # type: ignore[union-attr]


def test_a_discord_card_posted_again_after_a_kill_is_the_same_message(
    discord_api: DiscordAPI,
    tmp_path: Path,  # noqa: F811
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Discord returns the message a nonce already made (enforce_nonce): the retry gets the first card back."""
    from bot.discord.surface import DiscordReporter

    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    conn = redis.Redis.from_url(redis_url)
    reporter = DiscordReporter.for_settings(settings, RunStore(conn))
    run = RunState(
        question="triage #3",
        status="awaiting_approval",
        origin=Origin(kind="discord", user="1500000000000000001", channel=di.CHANNEL_ID, team=di.GUILD_ID),
    )
    run.pending = [
        PendingCall(
            pending_id=f"{run.id}.call_0", call_id="call_0", name=LABEL[0], arguments=json.dumps(LABEL[1]), step=1
        )
    ]
    RunStore(conn).save(run)
    approvals.open_step(conn, run, run.pending, 3600)

    def killed(*args: Any, **kwargs: Any) -> None:
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(approvals, "attach_card", killed)
        with pytest.raises(Killed):
            reporter.post_cards(run, run.pending)
    (again,) = reporter.post_cards(run, run.pending)  # the retried job
    cards = [msg for msg in discord_api.channel(di.CHANNEL_ID) if msg.get("components")]
    assert [c["id"] for c in cards] == [again]
    assert approvals.load(conn, run.pending[0].pending_id).card_ts == again  # type: ignore[union-attr]
    assert not discord_api.problems
