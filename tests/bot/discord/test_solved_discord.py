"""A Discord answer marked solved becomes knowledge (issue 39): `/atlas ask` answered by a real worker (offline),
"Mark as answer" under it (twice: one card), the entry drafted from the thread's words on an approval card, the
asker's names left out though a maintainer clicked (the worker reads them from Discord), an approver's Approve keeps
it; a click from a private thread (channel type 12) is refused and starts nothing."""

from __future__ import annotations

from pathlib import Path

import redis

from atlas.settings import Settings
from bot.discord.views.components import APPROVE_PREFIX, MARK_ANSWER_PREFIX
from tests.bot.discord.test_e2e import MAINTAINER, ROLE
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.github_api import GitHubAPI
from tests.support.github_harness import run_sync
from tests.support.processes import atlas_serve, wait_for, worker_process
from tests.support.triage_inbox_harness import repository
from workers.knowledge import entries

ASKER = di.member("1500000000000000021", name="maria")
ASKER["user"]["global_name"] = "Maria Lopez"


def _custom_ids(message: dict) -> list[str]:
    return [b["custom_id"] for row in message.get("components") or [] for b in row["components"]]


def test_mark_as_answer_on_discord_drafts_one_card_and_approve_keeps_the_entry(
    atlas_env: dict[str, str], tmp_path: Path
) -> None:
    with GitHubAPI(repository()) as github, DiscordAPI() as discord:
        env = {
            **atlas_env,
            **github.env(),
            **discord.env(),
            "DISCORD_PUBLIC_KEY": di.PUBLIC_KEY,
            "ATLAS_DISCORD_APPROVER_ROLE": ROLE,
            "ATLAS_SEMANTIC": "off",
        }
        env.pop("ATLAS_DATA", None)
        run_sync(github, Settings.from_env(env))
        conn = redis.Redis.from_url(env["REDIS_URL"])
        discord.members[ASKER["user"]["id"]] = {"user": ASKER["user"], "nick": "Mimi"}
        with atlas_serve(env, tmp_path / "serve.log") as port, worker_process(env, "solved-discord"):
            serve = di.InteractionSender(f"http://127.0.0.1:{port}/discord/interactions", discord)
            ask = di.ask("How does Maria Lopez set up Redis for rocket?", ASKER)
            assert serve.send(ask).body == {"type": 5}
            answer = wait_for(
                lambda: next(
                    (
                        m
                        for m in discord.channel(f"webhook:{ask['token']}")
                        if any(c.startswith(MARK_ANSWER_PREFIX) for c in _custom_ids(m))
                    ),
                    None,
                ),
                timeout=60,
                what="the answer with its Mark as answer button",
            )
            [mark] = [c for c in _custom_ids(answer) if c.startswith(MARK_ANSWER_PREFIX)]
            hidden = di.click(mark, MAINTAINER, message=answer)
            hidden["channel"] = {
                "id": di.CHANNEL_ID,
                "type": 12,
            }  # a private thread, as the interaction names its channel
            assert "public channels" in serve.send(hidden).body["data"]["content"]
            clicked = di.click(mark, MAINTAINER, message=answer)
            clicked["channel"] = {"id": di.CHANNEL_ID, "type": 0}
            first, again = serve.send(clicked).body, serve.send(clicked).body
            assert "Drafting" in first["data"]["content"] and "already" in again["data"]["content"]
            card = wait_for(
                lambda: next(
                    (
                        m
                        for m in discord.channel(di.CHANNEL_ID)
                        if any(c.startswith(APPROVE_PREFIX) for c in _custom_ids(m))
                    ),
                    None,
                ),
                timeout=60,
                what="the knowledge card",
            )
            assert "solved thread as knowledge" in card["content"] and entries.listed(conn) == []
            [approve] = [c for c in _custom_ids(card) if c.startswith(APPROVE_PREFIX)]
            assert serve.send(di.click(approve, MAINTAINER, message=card)).body["type"] == 7
            [entry] = wait_for(lambda: entries.listed(conn), timeout=60, what="the entry kept")
    assert entry.question == "How does set up Redis for rocket?" and entry.answer and "Maria" not in entry.answer
