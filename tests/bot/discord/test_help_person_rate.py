"""Help channel limits on Discord, end to end (issue 35 item 6): the gateway stand-in's MESSAGE_CREATEs -> `atlas
discord` -> Redis -> the Discord REST stand-in. With ATLAS_HELP_PERSON_RATE=2 and ATLAS_HELP_RATE=3, one person's
posts past two get one reply saying why they are not answered (never a ping); another person's post still runs, and
once the channel is full their next posts get one reply saying so."""

from __future__ import annotations

from pathlib import Path

import redis

from tests.bot.discord.test_help_channels import CHANNEL, OTHER_ASKER, _message, _runs
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import gateway, gateway_api  # noqa: F401
from tests.standins.discord_gateway import GatewayStandin
from tests.support.processes import atlas_process, wait_for
from tests.support.tools_dataset import make_dataset
from workers import wording


def test_one_person_keeps_to_their_share_and_a_held_back_post_is_told_once(
    gateway: GatewayStandin,
    gateway_api: DiscordAPI,
    atlas_env: dict[str, str],
    redis_conn: redis.Redis,
    tmp_path: Path,  # noqa: F811
) -> None:
    api = gateway_api
    env = {
        **atlas_env,
        **api.env(),
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_SEMANTIC": "false",
        "ATLAS_DISCORD_HELP_CHANNELS": CHANNEL,
        "ATLAS_HELP_RATE": "3",
        "ATLAS_HELP_PERSON_RATE": "2",
    }
    mine = [f"17000000000000002{n:02d}" for n in range(4)]
    theirs = [f"17000000000000003{n:02d}" for n in range(3)]
    proc = atlas_process(["discord"], env, tmp_path / "discord.log")
    try:
        wait_for(
            lambda: gateway.ready.is_set() or proc.poll() is not None, timeout=60, what="atlas discord to identify"
        )
        assert proc.poll() is None, (tmp_path / "discord.log").read_text()
        for n, ident in enumerate(mine):
            gateway.message_create(_message(ident, f"Question {n} about ORB-120{n}?", channel=CHANNEL))
        notes = lambda: [m for m in api.channel(CHANNEL) if (m.get("message_reference") or {}).get("message_id")]  # noqa: E731
        wait_for(lambda: _runs(redis_conn) >= 2 and len(notes()) >= 1, what="my two runs and my note")
        for n, ident in enumerate(theirs):
            gateway.message_create(_message(ident, f"Deploy question {n}?", channel=CHANNEL, author=OTHER_ASKER))
        wait_for(lambda: len(notes()) >= 2, what="the two notes")
        wait_for(lambda: _runs(redis_conn) >= 3, what="three help runs")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert _runs(redis_conn) == 3
    by_post = {
        m["message_reference"]["message_id"]: m for m in notes()
    }  # the gateway takes events concurrently: any order
    [to_me] = [p for p in by_post if p in mine]  # one note each this hour, however many were held back
    [to_them] = [p for p in by_post if p in theirs]
    assert len(by_post) == 2
    assert by_post[to_me]["content"] == wording.HELP_HELD["held_person"].format(person=2, channel=3)
    assert by_post[to_them]["content"] == wording.HELP_HELD["held_channel"].format(person=2, channel=3)
    assert all(m["allowed_mentions"] == {"parse": []} for m in by_post.values())
    api.assert_valid()
