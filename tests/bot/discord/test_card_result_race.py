"""An approval click's card update against a worker that was quicker (bot/discord/cards.py `clicked_payload`): the
closing decision queues the resume before Discord applies the click's UPDATE_MESSAGE, so the worker may have run the
call and shown its result on the card first; the update must not take the result off it. Against the Discord REST
stand-in (the card), the endpoint's handler and a real Redis."""

from __future__ import annotations

from bot.discord.interactions import Interactions
from bot.discord.surface import DiscordReporter
from bot.discord.views.components import APPROVE_PREFIX
from bot.lookups import Lookups
from tests.standins import discord_interactions as di
from tests.standins.discord_api import GUILD_ID, DiscordAPI
from tests.standins.discord_fixtures import discord_api, rt  # noqa: F401
from workers.agent.events import Paused
from workers.approvals import ledger
from workers.approvals import records as approvals
from workers.process import runtime
from workers.runs.state import Origin, PendingCall, RunState

THREAD = "1300000000000000005"
ADMIN = di.member("1500000000000000001", permissions=1 << 5, name="maintainer")
LABELED = "Added labels bug to #3."


def _clicked(rt: runtime.Runtime, discord_api: DiscordAPI, run_id: str, worker_first: bool) -> str:  # noqa: F811
    call = PendingCall(
        pending_id=f"{run_id}.call_l",
        call_id="call_l",
        name="add_labels",
        arguments='{"issue_id": 3, "labels": ["bug"]}',
        step=1,
    )
    run = RunState(
        id=run_id,
        question="label #3 as a bug",
        status="awaiting_approval",
        pending=[call],
        origin=Origin(
            kind="discord", channel="1300000000000000001", message_ts=THREAD, team=GUILD_ID, user="1500000000000000009"
        ),
    )
    rt.store.save(run)
    approvals.open_step(rt.conn, run, run.pending, 24 * 3600)
    DiscordReporter.for_settings(rt.settings, rt.store).event(run, Paused((call,)))
    [card] = discord_api.channel(THREAD)
    [approve] = [
        b["custom_id"]
        for row in card["components"]
        for b in row["components"]
        if b["custom_id"].startswith(APPROVE_PREFIX)
    ]
    if worker_first:  # the resume ran the call and recorded it before Discord applied the click's update
        ledger.record(rt.conn, run_id, "call_l", LABELED, True)
    handler = Interactions(rt.settings, rt.conn, Lookups(rt.settings.data_dir))
    reply = handler.handle(di.click(approve, ADMIN, channel=THREAD, message=card))
    assert reply["type"] == 7  # UPDATE_MESSAGE
    return str(reply["data"]["content"])


def test_a_result_the_worker_recorded_first_is_on_the_clicks_card_update(
    rt: runtime.Runtime,  # noqa: F811
    discord_api: DiscordAPI,  # noqa: F811
) -> None:
    assert "Done: Added labels bug to" in _clicked(rt, discord_api, "r5", worker_first=True)


def test_with_no_result_yet_the_clicks_update_shows_the_decision_alone(
    rt: runtime.Runtime,  # noqa: F811
    discord_api: DiscordAPI,  # noqa: F811
) -> None:
    shown = _clicked(rt, discord_api, "r6", worker_first=False)
    assert "Approved" in shown or "approved" in shown
    assert "Done:" not in shown and "Added labels" not in shown
