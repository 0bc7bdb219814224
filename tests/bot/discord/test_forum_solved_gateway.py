"""A Discord thread marked solved over the Gateway (issue 39 item 4), the real `atlas discord` process (hikari):
- a forum post tagged solved: THREAD_UPDATE for a post whose latest answer is Atlas's, the forum's tag names read
  with one Get Channel (its cache never saw the forum), the post's one solved-thread run started when the tag just
  applied is the solved tag; another tag starts nothing (tests/bot/discord/test_forum_solved.py: the decision);
- a maintainer's ✅ on an answer (MESSAGE_REACTION_ADD) starts the answer's one run, named without the maintainer;
  a passer-by's ✅, a ✅ on a message that is no answer, and a maintainer's ✅ in a private thread start nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis

from tests.bot.discord.test_gateway import gateway_process
from tests.bot.discord.test_help_channels import ASKER, FORUM, _forum_thread
from tests.standins.discord_api import GUILD_ID, DiscordAPI
from tests.standins.discord_fixtures import gateway, gateway_api  # noqa: F401
from tests.standins.discord_gateway import GatewayStandin
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from workers.knowledge import solved_claim
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordSurface

SOLVED_TAG, BUG_TAG = "1700000000000000901", "1700000000000000902"
POST, OTHER_POST = "1700000000000000911", "1700000000000000912"


def _forum() -> dict[str, Any]:
    """Get Channel for the forum: its tags, the solved one named as people write it."""
    tag = {"moderated": False, "emoji_id": None, "emoji_name": None}
    return {
        "id": FORUM,
        "guild_id": GUILD_ID,
        "type": 15,
        "name": "help",
        "position": 0,
        "topic": None,
        "permission_overwrites": [],
        "available_tags": [{**tag, "id": SOLVED_TAG, "name": "Solved"}, {**tag, "id": BUG_TAG, "name": "bug"}],
    }


def _answered(conn: redis.Redis, post: str, answer_id: str = "") -> RunState:
    """An answer of Atlas's in the forum post, remembered as the post's latest (as a finished run is)."""
    run = RunState(
        question="Why does my worker hang?",
        answer="Upgrade to 2.3.1.",
        status="done",
        origin=Origin(kind="discord", team=GUILD_ID, channel=FORUM, thread_ts=post, user=ASKER),
        surface=DiscordSurface(thread_id=post, answer_ids=[(answer_id, "channel")] if answer_id else []),
    )
    RunStore(conn).save(run)
    solved_claim.remember_answer(conn, run)
    return run


def _tagged(post: str, *tags: str) -> dict[str, Any]:
    return {**_forum_thread(post, "worker hangs"), "newly_created": False, "applied_tags": list(tags)}


def test_a_forum_post_tagged_solved_over_the_gateway_starts_its_one_solved_thread_run(
    gateway: GatewayStandin,
    gateway_api: DiscordAPI,  # noqa: F811 - fixtures
    atlas_env: dict[str, str],
    redis_conn: redis.Redis,
    tmp_path: Path,
) -> None:
    api = gateway_api
    api.channel_objects[FORUM] = _forum()
    env = {**atlas_env, **api.env(), "ATLAS_DATA": str(make_dataset(tmp_path / "data"))}
    solved, other = _answered(redis_conn, POST), _answered(redis_conn, OTHER_POST)
    with gateway_process(env, gateway, tmp_path):
        gateway.dispatch("THREAD_UPDATE", _tagged(OTHER_POST, BUG_TAG))
        gateway.dispatch("THREAD_UPDATE", _tagged(POST, BUG_TAG, SOLVED_TAG))
        started = wait_for(
            lambda: redis_conn.get(solved_claim.claim_key(solved.id)), timeout=30, what="the solved-thread run"
        )
        wait_for(  # both posts' tags were read, so the other post's update was handled too
            lambda: len([r for r in api.requests if r.method == "GET" and r.path == f"/channels/{FORUM}"]) >= 2,
            what="both updates handled",
        )
    run = RunStore(redis_conn).load(started.decode())
    assert run.solved is not None and run.solved.marked == "forum_tag" and run.solved.source_run == solved.id
    assert run.status == "queued"
    assert redis_conn.get(solved_claim.claim_key(other.id)) is None  # another tag starts nothing


MAINTAINER_ROLE, MAINTAINER, PASSERBY = "1600000000000000941", "1500000000000000942", "1500000000000000943"
CHECKED, PRIVATE, ANSWER, PRIVATE_ANSWER = (
    "1700000000000000921",
    "1700000000000000922",
    "1700000000000000931",
    "1700000000000000932",
)


def _reaction(message: str, channel: str, user: str, roles: list[str], emoji: str = "\u2705") -> dict[str, Any]:
    """MESSAGE_REACTION_ADD as Discord sends it in a server: the reacting member, the emoji by name."""
    return {
        "user_id": user,
        "channel_id": channel,
        "message_id": message,
        "guild_id": GUILD_ID,
        "emoji": {"id": None, "name": emoji},
        "burst": False,
        "type": 0,
        "member": {
            "user": {"id": user, "username": "mara", "discriminator": "0", "global_name": "Mara Quinn", "avatar": None},
            "nick": "mq",
            "roles": roles,
            "joined_at": "2026-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
        },
    }


def test_a_maintainers_check_mark_on_a_discord_answer_starts_its_one_solved_thread_run(
    gateway: GatewayStandin,
    gateway_api: DiscordAPI,  # noqa: F811 - fixtures
    atlas_env: dict[str, str],
    redis_conn: redis.Redis,
    tmp_path: Path,
) -> None:
    api = gateway_api
    api.channel_objects[CHECKED] = _forum_thread(CHECKED, "worker hangs")
    api.channel_objects[PRIVATE] = {**_forum_thread(PRIVATE, "secret"), "type": 12}
    env = {
        **atlas_env,
        **api.env(),
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_DISCORD_APPROVER_ROLE": MAINTAINER_ROLE,
    }
    answered, hidden = _answered(redis_conn, CHECKED, ANSWER), _answered(redis_conn, PRIVATE, PRIVATE_ANSWER)
    with gateway_process(env, gateway, tmp_path):
        gateway.dispatch("MESSAGE_REACTION_ADD", _reaction(ANSWER, CHECKED, PASSERBY, []))
        gateway.dispatch(
            "MESSAGE_REACTION_ADD", _reaction("1700000000000000939", CHECKED, MAINTAINER, [MAINTAINER_ROLE])
        )
        gateway.dispatch("MESSAGE_REACTION_ADD", _reaction(PRIVATE_ANSWER, PRIVATE, MAINTAINER, [MAINTAINER_ROLE]))
        gateway.dispatch(
            "MESSAGE_REACTION_ADD", _reaction(ANSWER, CHECKED, MAINTAINER, [MAINTAINER_ROLE], "\U0001f44d")
        )
        gateway.dispatch("MESSAGE_REACTION_ADD", _reaction(ANSWER, CHECKED, MAINTAINER, [MAINTAINER_ROLE]))
        gateway.dispatch("MESSAGE_REACTION_ADD", _reaction(ANSWER, CHECKED, MAINTAINER, [MAINTAINER_ROLE]))  # again
        started = wait_for(
            lambda: redis_conn.get(solved_claim.claim_key(answered.id)), timeout=30, what="the solved-thread run"
        )
        wait_for(  # each maintainer's ✅ read its thread's type: all were handled
            lambda: (
                [r.path for r in api.requests if r.method == "GET" and r.path.startswith("/channels/")].count(
                    f"/channels/{CHECKED}"
                )
                >= 3
                and any(r.method == "GET" and r.path == f"/channels/{PRIVATE}" for r in api.requests)
            ),
            what="every maintainer's check mark handled",
        )
    run = RunStore(redis_conn).load(started.decode())
    assert run.solved is not None and run.solved.marked == "reaction" and run.solved.source_run == answered.id
    assert run.origin.user == MAINTAINER and {"mara", "Mara Quinn", "mq"} <= set(run.solved.names)
    assert redis_conn.get(solved_claim.claim_key(hidden.id)) is None  # a private thread's answer: nothing
    solved_runs = list(redis_conn.scan_iter("atlas:run:solved-*"))
    assert len(solved_runs) == 1  # one run across the passer-by, the wrong message, the other emoji and the repeat
