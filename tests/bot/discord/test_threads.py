"""A thread archives after a day without messages, as long as an approval waits: the card in it is
still edited when the approval expires (Atlas unarchives the thread on Discord's 50083), so no card
keeps live buttons for a decision that can no longer be taken."""

from __future__ import annotations

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
