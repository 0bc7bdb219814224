"""A captured interaction replayed later is refused: Discord's timestamp is signed, and Atlas accepts it
only within five minutes of its own clock (as Slack's), so a vote cannot be flipped by a replay."""

from __future__ import annotations

import time

from tests.standins import discord_interactions as di
from tests.standins.discord_fixtures import RunningEndpoint, discord_api, endpoint  # noqa: F401
from workers.console_data import votes

VOTER = di.member("1500000000000000003", name="voter")


def test_an_interaction_signed_an_hour_or_a_month_ago_or_ahead_is_refused_and_changes_nothing(
    endpoint: RunningEndpoint,
) -> None:  # noqa: F811
    vote = di.click("atlas_feedback:run1:up", VOTER)
    for signed_at in (time.time() - 3600, time.time() - 30 * 86400, time.time() + 600):
        assert endpoint.send.send(vote, signed_at=signed_at).status == 401
    assert votes.votes(endpoint.conn, "run1") == {}
    assert endpoint.send.send(vote, signed_at=time.time() - 60).status == 200  # clocks a minute apart still work
    assert list(votes.votes(endpoint.conn, "run1").values()) == ["up"]


def test_a_timestamp_that_is_not_a_number_is_refused() -> None:
    from bot.discord.signature import Verifier

    body = b'{"type": 1}'
    verifier = Verifier(di.PUBLIC_KEY)
    assert verifier.valid(di.sign(body, str(int(time.time()))), str(int(time.time())), body)
    assert not verifier.valid(di.sign(body, "soon"), "soon", body)
