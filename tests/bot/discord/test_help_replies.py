"""Discord help channels against what Discord sends (issue 35): a Reply to Atlas lists Atlas in `mentions`
(the Reply's ping, on by default) though nobody wrote a mention, and a forum post may arrive in a thread the
Gateway's cache never saw (made while `atlas discord` was away). The real `atlas discord` process (hikari)
against the Gateway and REST stand-ins; the REST stand-in answers Get Channel for the channels it knows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis

from bot.discord import intake
from tests.bot.discord.test_help_channels import ASKER, CHANNEL, FORUM, MAINTAINER, MAINTAINERS, _forum_thread, _message
from tests.standins.discord_api import GUILD_ID, DiscordAPI
from tests.standins.discord_fixtures import gateway, gateway_api  # noqa: F401
from tests.standins.discord_gateway import BOT_USER_ID, GatewayStandin, mention_payload
from tests.support.processes import atlas_process, wait_for
from tests.support.tools_dataset import make_dataset
from workers.help import threads

ELSEWHERE = "1300000000000000603"


def _reply_to_atlas(message_id: str, content: str, *, thread: str, replied: str, author: str) -> dict[str, Any]:
    """A Reply (type 19) to Atlas's message, as Discord sends it with the ping left on: Atlas is in `mentions`,
    the content has no mention, and `message_reference` names the message replied to."""
    payload = _message(message_id, content, channel=thread, author=author, roles=(MAINTAINERS,), kind=19)
    payload["mentions"] = [
        {
            "id": BOT_USER_ID,
            "username": "atlas",
            "discriminator": "0",
            "global_name": "Atlas",
            "avatar": None,
            "bot": True,
        }
    ]
    payload["message_reference"] = {"type": 0, "message_id": replied, "channel_id": thread, "guild_id": GUILD_ID}
    atlas_said = mention_payload(
        replied,
        "ORB-1202 means the retry budget is spent.",
        channel_id=thread,
        author_id=BOT_USER_ID,
        mentions_bot=False,
    )
    payload["referenced_message"] = {**atlas_said, "author": payload["mentions"][0]}
    return payload


def _has_run(conn: redis.Redis, message_id: str) -> bool:
    return bool(conn.exists(f"atlas:run:{intake.run_id_for('message', message_id)}"))


def test_a_maintainer_s_reply_to_atlas_steps_it_back_without_asking_it_and_an_uncached_forum_post_is_answered(
    gateway: GatewayStandin,
    gateway_api: DiscordAPI,  # noqa: F811 - fixtures
    atlas_env: dict[str, str],
    redis_conn: redis.Redis,
    tmp_path: Path,
) -> None:
    api = gateway_api
    env = {
        **atlas_env,
        **api.env(),
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_SEMANTIC": "false",
        "ATLAS_DISCORD_HELP_CHANNELS": f"{CHANNEL},{FORUM}",
        "ATLAS_HELP_MAINTAINERS": MAINTAINERS,
    }
    post, reply, sentinel, forum_post = (
        "1700000000000000201",
        "1700000000000000202",
        "1700000000000000203",
        "1700000000000000204",
    )
    # A forum post whose THREAD_CREATE this process never received: only Get Channel knows its parent
    api.channel_objects[forum_post] = _forum_thread(forum_post, "ORB-1101?")
    proc = atlas_process(["discord"], env, tmp_path / "discord.log")
    try:
        wait_for(
            lambda: gateway.ready.is_set() or proc.poll() is not None, timeout=60, what="atlas discord to identify"
        )
        assert proc.poll() is None, (tmp_path / "discord.log").read_text()
        gateway.message_create(_message(post, "What does ORB-1202 mean?", channel=CHANNEL, author=ASKER))
        wait_for(lambda: _has_run(redis_conn, post), what="the help post's run")
        gateway.message_create(
            _reply_to_atlas(
                reply,
                "Not quite: raise PermanentError there.",
                thread=post,
                replied="1700000000000000299",
                author=MAINTAINER,
            )
        )
        wait_for(lambda: threads.stepped_back(redis_conn, threads.discord_thread(GUILD_ID, post)), what="the step back")
        gateway.message_create(
            mention_payload(sentinel, f"<@{BOT_USER_ID}> What does ORB-1101 mean?", channel_id=ELSEWHERE)
        )
        wait_for(lambda: _has_run(redis_conn, sentinel), what="a real mention's run (every earlier event handled)")
        gateway.message_create(_message(forum_post, "What does ORB-1101 mean?", channel=forum_post))
        wait_for(lambda: _has_run(redis_conn, forum_post), timeout=20, what="the uncached forum post's run")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert not _has_run(redis_conn, reply), "the maintainer's Reply to Atlas was taken as a question to it"
    assert any(r.method == "GET" and r.path == f"/channels/{forum_post}" for r in api.requests)
    api.assert_valid()
