"""The run's Discord surface through the chat-platform port: cards posted in the thread, edited on expiry."""

from __future__ import annotations

from bot.discord.surface import DiscordReporter
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, rt  # noqa: F401
from workers.agent.events import Paused
from workers.approvals import records as approvals
from workers.jobs import expiry
from workers.process import platforms, runtime
from workers.runs.state import Origin, PendingCall, RunState


def test_the_port_picks_discord_for_a_discord_run_and_an_expired_card_is_edited_there(
    rt: runtime.Runtime,
    discord_api: DiscordAPI,  # noqa: F811
) -> None:
    assert isinstance(platforms.for_run(rt.settings, rt.store, "discord"), DiscordReporter)
    assert platforms.for_run(rt.settings, rt.store, "cli") is None
    call = PendingCall(
        pending_id="r1.call_x",
        call_id="call_x",
        name="add_labels",
        arguments='{"issue_id": 3, "labels": ["needs-repro"]}',
        step=1,
    )
    run = RunState(
        id="r1",
        question="label #3",
        status="awaiting_approval",
        pending=[call],
        origin=Origin(
            kind="discord",
            channel="1300000000000000001",
            message_ts="1300000000000000002",
            team="1200000000000000001",
            user="1500000000000000001",
        ),
    )
    rt.store.save(run)
    approvals.open_step(rt.conn, run, run.pending, 3600)
    DiscordReporter.for_settings(rt.settings, rt.store).event(run, Paused((call,)))
    [card] = discord_api.channel("1300000000000000002")  # in the thread started from the message
    assert card["components"][0]["components"][0]["custom_id"] == "atlas_approval_approve:r1.call_x"
    assert "Atlas wants to add labels" in card["content"] and "`needs-repro`" in card["content"]

    assert expiry.expire_step("r1", 1) == 1
    [edited] = discord_api.channel("1300000000000000002")
    assert (
        "Expired" in edited["content"]
        and edited["components"] == []
        and "Atlas wants to add labels" in edited["content"]
    )
    discord_api.assert_valid()
