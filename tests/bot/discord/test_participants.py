"""The people of a Discord thread, as the worker reads them for a solved thread's entry (issue 39 item 4): every
person who wrote in the thread and every asker, by username, display name and nickname; never Atlas itself, never a
channel's authors (only a thread's), and a member Discord does not know leaves only the names the thread gave."""

from __future__ import annotations

import redis

from bot.discord.participants import names
from bot.discord.rest import DiscordREST
from bot.discord.surface import DiscordReporter
from tests.standins.discord_api import DiscordAPI
from workers.runs.state import Origin, RunState, Turn
from workers.runs.store import RunStore

GUILD, THREAD = "1100000000000000001", "1300000000000000077"
ASKER, HELPER, GONE = "1500000000000000031", "1500000000000000032", "1500000000000000033"


def _said(discord: DiscordAPI, channel: str, author: dict[str, object]) -> None:
    discord.messages[channel].append(
        {"id": discord.next_id(), "channel_id": channel, "author": author, "content": "…", "_created": discord.now()}
    )


def test_every_author_and_asker_of_the_thread_is_named_atlas_never() -> None:
    with DiscordAPI() as discord:
        discord.members[ASKER] = {
            "user": {"id": ASKER, "username": "maria", "global_name": "Maria Lopez"},
            "nick": "Mimi",
        }
        discord.members[HELPER] = {"user": {"id": HELPER, "username": "sam", "global_name": None}, "nick": None}
        _said(discord, THREAD, {"id": HELPER, "username": "sam", "global_name": "Sam Ortiz"})
        _said(discord, THREAD, {"id": GONE, "username": "left_user", "global_name": "Left User"})  # no longer a member
        discord.messages[THREAD].append(
            {"id": discord.next_id(), "author": {"id": "9", "username": "atlas", "bot": True}, "_created": 0.0}
        )
        rest = DiscordREST(discord.token, discord.base_url)
        found = names(rest, GUILD, THREAD, [ASKER, None])
        in_a_channel = names(rest, GUILD, None, [ASKER])
    assert set(found) == {"maria", "Maria Lopez", "Mimi", "sam", "Sam Ortiz", "left_user", "Left User"}
    assert "atlas" not in found
    assert in_a_channel == ["maria", "Maria Lopez", "Mimi"]


def test_a_forum_posts_answer_names_its_asker_and_its_repliers(redis_conn: redis.Redis) -> None:
    """A forum post tagged solved names nobody (bot/discord/forum_solved.py): the worker reads them all."""
    source = RunState(
        question="Why does Maria Lopez's worker hang?",
        origin=Origin(kind="discord", team=GUILD, channel=THREAD, thread_ts=THREAD, user=ASKER),
        history=[Turn(question="Is it the lease?", answer="Maybe.", asker=HELPER)],
    )
    with DiscordAPI() as discord:
        discord.members[ASKER] = {"user": {"id": ASKER, "username": "maria", "global_name": "Maria Lopez"}}
        discord.members[HELPER] = {"user": {"id": HELPER, "username": "sam"}, "nick": "Sammy"}
        reporter = DiscordReporter(DiscordREST(discord.token, discord.base_url), RunStore(redis_conn))
        found = reporter.people(source)
    assert found == ["maria", "Maria Lopez", "sam", "Sammy"]
