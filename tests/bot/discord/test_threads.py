"""A thread archives after a day without messages, as long as an approval waits: the card in it is
still edited when the approval expires (Atlas unarchives the thread on Discord's 50083), so no card
keeps live buttons for a decision that can no longer be taken."""

from __future__ import annotations

import pytest

from bot.discord.surface import DiscordReporter
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, rt  # noqa: F401
from workers.agent.events import Paused
from workers.approvals import records as approvals
from workers.jobs import expiry
from workers.process import runtime
from workers.runs.state import Origin, PendingCall, RunState

THREAD = "1300000000000000002"  # the thread started from the asking message has the message's id


def test_an_expired_card_in_a_thread_archived_meanwhile_is_still_edited(
    rt: runtime.Runtime, discord_api: DiscordAPI
) -> None:  # noqa: F811
    call = PendingCall(
        pending_id="r2.call_x",
        call_id="call_x",
        name="close_issue",
        arguments='{"issue_id": 3, "reason": "completed"}',
        step=1,
    )
    run = RunState(
        id="r2",
        question="close #3",
        status="awaiting_approval",
        pending=[call],
        origin=Origin(
            kind="discord",
            channel="1300000000000000001",
            message_ts=THREAD,
            team="1200000000000000001",
            user="1500000000000000001",
        ),
    )
    rt.store.save(run)
    approvals.open_step(rt.conn, run, run.pending, 24 * 3600)
    DiscordReporter.for_settings(rt.settings, rt.store).event(run, Paused((call,)))
    [card] = discord_api.channel(THREAD)
    assert card["components"]

    discord_api.advance(24 * 3600 + 60)  # the thread's auto-archive duration passes with no message
    assert expiry.expire_step("r2", 1) == 1
    [edited] = discord_api.channel(THREAD)
    assert "Expired" in edited["content"] and edited["components"] == []
    assert [r.status for r in discord_api.to("PATCH", f"/messages/{card['id']}$")][0] == 400  # Discord's 50083 first
    assert discord_api.to("PATCH", f"^/channels/{THREAD}$")  # then the thread was unarchived
    discord_api.assert_valid()


def _asked(rt: runtime.Runtime, run_id: str, message: str) -> RunState:
    run = RunState(
        id=run_id,
        question="what is ORB-1202?",
        origin=Origin(kind="discord", channel="1300000000000000001", message_ts=message, team="1200000000000000001"),
    )
    rt.store.save(run)
    return run


def test_a_thread_that_cannot_be_started_for_now_is_not_given_up_for_the_channel(
    rt: runtime.Runtime, discord_api: DiscordAPI
) -> None:  # noqa: F811
    """Discord unreachable or failing (5xx) when the thread starts: the job fails, for RQ to retry, and nothing is
    recorded, so the retry starts the thread; before, the answer went to the channel for good. A refusal (no
    permission to start threads here) still answers in the channel."""
    from bot.discord import threads
    from bot.discord.rest import DiscordError, DiscordREST

    original = discord_api._apply
    answer = {"status": 503}

    def refusing(method, path, body):  # noqa: ANN001, ANN202
        if path.endswith("/threads"):
            return answer["status"], {"message": "refused", "code": 50013 if answer["status"] == 403 else 0}
        return original(method, path, body)

    discord_api._apply = refusing  # type: ignore[method-assign]
    rest = DiscordREST(rt.settings.discord_bot_token, rt.settings.discord_api_url, sleep=lambda s: None)
    run = _asked(rt, "r3", "1300000000000000003")
    with pytest.raises(DiscordError):
        threads.channel_for(rest, rt.store, run)
    kept = rt.store.load("r3").surface
    assert kept is None or (getattr(kept, "thread_id", None) is None and getattr(kept, "reply_to", None) is None)

    discord_api._apply = original  # type: ignore[method-assign]
    assert threads.channel_for(rest, rt.store, rt.store.load("r3")) == "1300000000000000003"  # the retry's thread

    discord_api._apply = refusing  # type: ignore[method-assign]
    answer["status"] = 403
    refused = _asked(rt, "r4", "1300000000000000004")
    assert threads.channel_for(rest, rt.store, refused) == "1300000000000000001"
    assert rt.store.load("r4").surface.reply_to == "1300000000000000004"  # type: ignore[union-attr]
