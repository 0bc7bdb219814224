"""Help channels on Discord, end to end: the real `atlas discord` process (hikari) against the Gateway and
REST stand-ins, real `atlas worker` processes, the offline model over the Orbit data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis

from bot.discord import intake
from bot.discord.gateway import HELP_INTENTS
from tests.standins.discord_api import GUILD_ID, DiscordAPI
from tests.standins.discord_fixtures import gateway, gateway_api  # noqa: F401
from tests.standins.discord_gateway import GatewayStandin, mention_payload
from tests.support.processes import atlas_process, burst_worker, wait_for
from tests.support.tools_dataset import make_dataset
from workers.help import threads
from workers.runs.store import RunStore

CHANNEL, FORUM, ELSEWHERE = "1300000000000000601", "1300000000000000602", "1300000000000000603"
ASKER, OTHER_ASKER, MAINTAINER = "1500000000000000031", "1500000000000000032", "1500000000000000033"
MAINTAINERS, HANDOFF = "1600000000000000041", "1600000000000000042"


def _message(
    message_id: str,
    content: str,
    *,
    channel: str,
    author: str = ASKER,
    roles: tuple[str, ...] = (),
    bot: bool = False,
    kind: int = 0,
) -> dict[str, Any]:
    """A MESSAGE_CREATE as Discord sends it with the message-content intent: no mention needed for the content."""
    payload = mention_payload(message_id, content, channel_id=channel, author_id=author, mentions_bot=False)
    payload["member"]["roles"] = list(roles)
    payload["author"]["bot"] = bot
    payload["type"] = kind
    return payload


def _forum_thread(thread_id: str, name: str) -> dict[str, Any]:
    """THREAD_CREATE for a new forum post (Discord sends it before the post's starter message, whose id is the
    thread's)."""
    return {
        "id": thread_id,
        "guild_id": GUILD_ID,
        "parent_id": FORUM,
        "owner_id": ASKER,
        "type": 11,
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "total_message_sent": 0,
        "newly_created": True,
        "applied_tags": [],
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 4320,
            "archive_timestamp": "2026-11-30T12:00:00.000000+00:00",
            "locked": False,
            "create_timestamp": "2026-11-30T12:00:00.000000+00:00",
        },
    }


def _runs(conn: redis.Redis) -> int:
    return len([k for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2])


def test_help_posts_on_discord_are_answered_in_their_thread_once_and_a_maintainer_s_reply_ends_it(
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
        "ATLAS_MODEL_RETRIES": "0",
        "ATLAS_DISCORD_HELP_CHANNELS": f"{CHANNEL},{FORUM}",
        "ATLAS_HELP_MAINTAINERS": MAINTAINERS,
        "ATLAS_HANDOFF": HANDOFF,
    }
    answered, nomad, forum_post = "1700000000000000101", "1700000000000000102", "1700000000000000103"
    proc = atlas_process(["discord"], env, tmp_path / "discord.log")
    try:
        wait_for(
            lambda: gateway.ready.is_set() or proc.poll() is not None, timeout=60, what="atlas discord to identify"
        )
        assert proc.poll() is None, (tmp_path / "discord.log").read_text()
        [identify] = gateway.received.identifies
        assert identify["intents"] == int(HELP_INTENTS) and identify["intents"] & (1 << 15)  # message content
        gateway.message_create(_message("1700000000000000090", "What does ORB-1202 mean?", channel=ELSEWHERE))
        gateway.message_create(
            _message(
                "1700000000000000091",
                "What does ORB-1202 mean?",
                channel=CHANNEL,
                author="1100000000000000077",
                bot=True,
            )
        )  # another Atlas
        gateway.message_create(_message("1700000000000000092", "", channel=CHANNEL, kind=7))  # a member joined
        post = _message(answered, "What does ORB-1202 mean?", channel=CHANNEL)
        gateway.message_create(post)
        gateway.message_create(
            post
        )  # delivered again, as a replay after a RESUME is (the mentions' test drops the connection)
        gateway.message_create(_message(nomad, "How do I deploy on Nomad?", channel=CHANNEL, author=OTHER_ASKER))
        gateway.dispatch("THREAD_CREATE", _forum_thread(forum_post, "ORB-1101?"))
        gateway.message_create(_message(forum_post, "What does ORB-1101 mean?", channel=forum_post))
        wait_for(lambda: _runs(redis_conn) >= 3, what="three help runs")
        burst_worker(env)

        assert api.threads == {answered: CHANNEL, nomad: CHANNEL}  # the forum post is its own thread already
        [answer] = api.channel(answered)  # no progress message in a help channel
        assert "ORB-1202" in answer["content"] and answer["allowed_mentions"] == {"parse": []}
        [handoff] = api.channel(nomad)
        assert handoff["content"].startswith(f"<@&{HANDOFF}>") and "Nomad" in handoff["content"]
        assert handoff["allowed_mentions"] == {"parse": [], "roles": [HANDOFF]}
        [forum_answer] = api.channel(forum_post)
        assert "ORB-1101" in forum_answer["content"]
        assert not api.channel(ELSEWHERE) and not api.channel(CHANNEL)

        # A maintainer's reply: Atlas steps back; the asker's next message gets nothing. The other asker's goes on.
        gateway.message_create(
            _message(
                "1700000000000000110",
                "Raise PermanentError.",
                channel=answered,
                author=MAINTAINER,
                roles=(MAINTAINERS,),
            )
        )
        wait_for(
            lambda: threads.stepped_back(redis_conn, threads.discord_thread(GUILD_ID, answered)), what="the step back"
        )
        gateway.message_create(_message("1700000000000000111", "And ORB-1101?", channel=answered))
        gateway.message_create(
            _message("1700000000000000112", "What does ORB-1202 mean?", channel=nomad, author=OTHER_ASKER)
        )
        wait_for(lambda: _runs(redis_conn) >= 4, what="the other asker's follow-up")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert _runs(redis_conn) == 4  # the asker's reply after the maintainer's started nothing
    follow_up = RunStore(redis_conn).load(intake.run_id_for("message", "1700000000000000112"))
    assert (
        follow_up.origin.unprompted and follow_up.origin.thread_ts == nomad and follow_up.history
    )  # the thread's turns
    api.assert_valid()
