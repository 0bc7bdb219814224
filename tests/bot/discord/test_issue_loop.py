"""From a Discord answer to a GitHub issue, and back: `/atlas ask` answered by a real worker, the answer's "File as
GitHub issue" button, the card drafted from the thread's words (no model) approved by a role member, one POST of the
issue on the GitHub stand-in, and a signed `issues.closed` webhook (delivered twice) told once in the channel, then a
release."""

from __future__ import annotations

from pathlib import Path

import redis
from rq import Queue
from rq.registry import StartedJobRegistry

from atlas.settings import Settings
from bot.discord import wording as discord_words
from bot.discord.views.components import APPROVE_PREFIX, FILE_ISSUE_PREFIX
from tests.bot.discord.test_e2e import MAINTAINER, ROLE
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.github_api import GitHubAPI
from tests.standins.github_new_issues import release_published
from tests.standins.github_webhooks import SECRET as WEBHOOK_SECRET
from tests.standins.github_webhooks import deliver, payload
from tests.support.github_harness import run_sync
from tests.support.processes import atlas_serve, wait_for, worker_process
from tests.support.triage_inbox_harness import repository


def _custom_ids(message: dict) -> list[str]:
    return [b["custom_id"] for row in message.get("components") or [] for b in row["components"]]


def test_a_discord_answer_filed_as_an_issue_hears_once_when_it_is_closed(
    atlas_env: dict[str, str], tmp_path: Path
) -> None:
    with GitHubAPI(repository()) as github, DiscordAPI() as discord:
        env = {
            **atlas_env,
            **github.env(),
            **discord.env(),
            "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "DISCORD_PUBLIC_KEY": di.PUBLIC_KEY,
            "ATLAS_DISCORD_APPROVER_ROLE": ROLE,
            "ATLAS_SEMANTIC": "off",
        }
        env.pop("ATLAS_DATA", None)
        run_sync(github, Settings.from_env(env))
        with atlas_serve(env, tmp_path / "serve.log") as port, worker_process(env, "loop-discord"):
            serve = di.InteractionSender(f"http://127.0.0.1:{port}/discord/interactions", discord)
            ask = di.ask("The scheduler skips jobs after a restart on rocket 2.3", MAINTAINER)
            assert serve.send(ask).body == {"type": 5}
            answer = wait_for(
                lambda: next(
                    (
                        m
                        for m in discord.channel(f"webhook:{ask['token']}")
                        if any(c.startswith(FILE_ISSUE_PREFIX) for c in _custom_ids(m))
                    ),
                    None,
                ),
                timeout=60,
                what="the answer with its File as GitHub issue button",
            )
            [file_button] = [c for c in _custom_ids(answer) if c.startswith(FILE_ISSUE_PREFIX)]
            first = serve.send(di.click(file_button, MAINTAINER, message=answer)).body
            again = serve.send(di.click(file_button, MAINTAINER, message=answer)).body
            assert (
                first["data"]["flags"] == 64
                and "Drafting" in first["data"]["content"]
                and "already" in again["data"]["content"]
            )

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
                what="the draft's card",
            )
            assert "file a new issue" in card["content"] and "rocket 2.3" in card["embeds"][0]["description"]
            assert (
                discord_words.APPROVAL_DRAFTED_BY["thread"] in card["content"]
            )  # no model configured: the thread's words
            assert github.requests("POST", r"/issues$") == []
            [approve] = [c for c in _custom_ids(card) if c.startswith(APPROVE_PREFIX)]
            assert serve.send(di.click(approve, MAINTAINER, message=card)).body["type"] == 7
            wait_for(lambda: github.requests("POST", r"/issues$"), what="the POST of the issue")
            number = max(github.repo.issues)
            wait_for(
                lambda: [m for m in discord.channel(di.CHANNEL_ID) if f"Filed #{number}" in m["content"]],
                what="the filed note",
            )

            closed = github.repo.edit_issue(number, state="closed", state_reason="not_planned")
            body = payload("issues-closed", github.repo, action="closed", issue=closed)
            for delivery in ("d-1", "d-2"):
                assert deliver(f"http://127.0.0.1:{port}/github/webhook", "issues", body, delivery=delivery)[0] == 202
            release = release_published(github.repo, github.repo.add_release("v2.3.1", f"Fixes #{number}."))
            assert deliver(f"http://127.0.0.1:{port}/github/webhook", "release", release, delivery="r-1")[0] == 202
            # the worker takes several jobs at once: wait for both notices, then for every webhook job to be done,
            # so a second close notice (the redelivery) would be there to count
            wait_for(
                lambda: [m for m in discord.channel(di.CHANNEL_ID) if "release v2.3.1" in m["content"]],
                what="the release notice",
            )
            wait_for(
                lambda: [m for m in discord.channel(di.CHANNEL_ID) if "was closed by" in m["content"]],
                what="the close notice",
            )
            queue = Queue(Settings.from_env(env).queue_name, connection=redis.Redis.from_url(env["REDIS_URL"]))
            wait_for(
                lambda: queue.count == 0 and StartedJobRegistry(queue=queue).count == 0, what="every webhook job done"
            )
            told = [m for m in discord.channel(di.CHANNEL_ID) if "was closed by" in m["content"]]
            assert len(github.requests("POST", r"/issues$")) == 1
        assert len(told) == 1 and f"#{number} " in told[0]["content"] and "as not planned" in told[0]["content"]
        assert len([m for m in discord.channel(di.CHANNEL_ID) if "was closed by" in m["content"]]) == 1
        discord.assert_valid()
        assert not serve.problems and github.violations == []
