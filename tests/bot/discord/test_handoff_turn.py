"""A help run that is not confident becomes its thread's turn on Discord as on Slack, whether or not a
hand-off is configured (ATLAS_HANDOFF): the asker's next reply in the thread is a run with the question in
view. The hand-off itself is posted only when there are roles to hand off to."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from atlas.help_settings import HelpSettings
from bot.discord.help_channels import HelpChannels, HelpMessage
from bot.discord.intake import run_id_for
from bot.discord.surface import DiscordReporter
from tests.standins.discord_api import GUILD_ID, DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.support.tools_dataset import make_dataset
from workers.agent.events import Finished
from workers.help.handoff import HelpReporter
from workers.runs.state import Turn
from workers.runs.store import RunStore

CHANNEL, FORUM, POST, REPLY = "1300000000000000611", "1300000000000000612", "1700000000000000201", "1700000000000000202"
ASKER, HANDOFF = "1500000000000000041", "1600000000000000051"
LOOKED_AT = "searched the docs and issues for “How do I deploy on Nomad?”; nothing there answers it"


def _message(message_id: str, question: str, *, channel: str, parent: str) -> HelpMessage:
    return HelpMessage(
        message_id=message_id,
        channel_id=channel,
        parent_id=parent,
        guild_id=GUILD_ID,
        author_id=ASKER,
        role_ids=frozenset(),
        question=question,
        mentioned=False,
    )


@pytest.mark.parametrize(
    ("where", "roles"),
    [("forum", ()), ("channel", ()), ("forum", (HANDOFF,))],
    ids=["forum-no-handoff", "channel-no-handoff", "forum-handoff"],
)
def test_a_run_that_hands_off_is_the_threads_turn_with_or_without_a_handoff(
    where: str,
    roles: tuple[str, ...],
    discord_api: DiscordAPI,
    redis_url: str,
    tmp_path: Path,  # noqa: F811
) -> None:
    settings = discord_settings(
        discord_api,
        redis_url,
        tmp_path / "home",
        make_dataset(tmp_path / "data"),
        help=HelpSettings(discord_channels=frozenset({CHANNEL, FORUM}), handoff=roles),
    )
    conn = redis.Redis.from_url(redis_url)
    store, help_channels = RunStore(conn), HelpChannels(settings, conn)
    post = _message(
        POST,
        "How do I deploy on Nomad?",
        channel=POST if where == "forum" else CHANNEL,
        parent=FORUM if where == "forum" else "",
    )  # a forum post's starter message has its thread's id
    assert help_channels.accept(post) == "queued"
    run = store.load(run_id_for("message", POST))
    run.status, run.stop_reason, run.answer, run.handoff = (
        "done",
        "done",
        LOOKED_AT,
        LOOKED_AT,
    )  # as the loop ends a hand-off

    HelpReporter(DiscordReporter.for_settings(settings, store), conn, settings).event(run, Finished())
    posted = discord_api.channel(POST)  # the post's thread (on a channel, started from the post: it has the post's id)
    assert [m["content"].startswith(f"<@&{HANDOFF}>") for m in posted] == ([True] if roles else [])

    # The asker replies in the thread (on a channel, one a member started from the post).
    assert (
        help_channels.accept(
            _message(REPLY, "On Nomad 1.7, with Consul.", channel=POST, parent=CHANNEL if where == "channel" else FORUM)
        )
        == "queued"
    )
    follow_up = store.load(run_id_for("message", REPLY))
    assert follow_up.history == [
        Turn(question="How do I deploy on Nomad?", answer=LOOKED_AT, asker=ASKER)
    ]  # who asked it
    discord_api.assert_valid()
