"""A maintainer's choice on a Discord triage card before deciding (issue 24 item 2): the labels' string select,
the reply's Edit modal (response type 9) and its submission; `atlas serve` and a worker as processes, the
Discord and GitHub stand-ins, responses checked against Discord's spec (skipped without ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import redis

from atlas.settings import Settings
from bot.discord.views import triage_controls as controls
from bot.discord.views.components import APPROVE_PREFIX
from tests.bot.discord.test_e2e import MAINTAINER, OUTSIDER, ROLE, serving_discord
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api  # noqa: F401
from tests.standins.github_api import GitHubAPI
from tests.standins.github_webhooks import SECRET as WEBHOOK_SECRET
from tests.standins.github_webhooks import deliver, payload
from tests.support.github_harness import run_sync
from tests.support.processes import wait_for, worker_process
from tests.support.triage_inbox_harness import repository
from workers.approvals import records as approvals

EDITED = "Thanks! Could you paste the scheduler log\u200b from 2.3? (edited)"
NOT_ALLOWED = {"type": 4}


def _arguments(conn: redis.Redis, pending_id: str) -> dict[str, object]:
    found = approvals.load(conn, pending_id)
    assert found is not None
    return dict(json.loads(found.arguments))


def _ids(card: dict[str, object]) -> list[str]:
    return [str(c["custom_id"]) for row in card.get("components") or [] for c in row["components"]]  # type: ignore[attr-defined]


def test_dropped_labels_and_an_edited_reply_are_what_approve_runs_on_discord(
    atlas_env: dict[str, str], discord_api: DiscordAPI, redis_conn: redis.Redis, tmp_path: Path
) -> None:  # noqa: F811
    with GitHubAPI(repository()) as github:
        env = {
            **atlas_env,
            **github.env(),
            **discord_api.env(),
            "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "DISCORD_PUBLIC_KEY": di.PUBLIC_KEY,
            "ATLAS_DISCORD_APPROVER_ROLE": ROLE,
            "ATLAS_DISCORD_TRIAGE_CHANNEL": di.CHANNEL_ID,
            "ATLAS_TRIAGE_ACTIONS": "duplicates=off,labels=draft,reply=draft",
        }
        run_sync(github, Settings.from_env(env))
        issue = github.repo.add_issue(
            "Scheduler crashes when a job fails", "The scheduler crashes with an error every time a job fails."
        )
        with serving_discord(env, tmp_path, discord_api) as serve, worker_process(env, "edits-discord"):
            opened = payload("issues-opened", github.repo, action="opened", issue=issue)
            opened["issue"]["author_association"] = "NONE"  # a newcomer: a maintainer's own issue is not triaged
            status, text = deliver(serve.url.replace("/discord/interactions", "/github/webhook"), "issues", opened)
            assert status in (200, 202), text
            [card] = wait_for(
                lambda: [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")], what="the card"
            )
            [pick] = [i for i in _ids(card) if i.startswith(controls.PICK_PREFIX)]
            [edit] = [i for i in _ids(card) if i.startswith(controls.EDIT_PREFIX)]
            labels_id, reply_id = (
                pick.removeprefix(controls.PICK_PREFIX),
                edit.removeprefix(controls.EDIT_PREFIX),
            )
            offered = list(_arguments(redis_conn, labels_id)["labels"])  # type: ignore[call-overload]
            assert len(offered) >= 2, offered
            kept = offered[:1]

            refused = serve.send(di.select(pick, kept, OUTSIDER, message=card)).body
            assert refused["type"] == 4 and "only the project's maintainers" in refused["data"]["content"]
            assert _arguments(redis_conn, labels_id)["labels"] == offered
            chosen = serve.send(di.select(pick, kept, MAINTAINER, message=card)).body
            assert chosen["type"] == 7 and _arguments(redis_conn, labels_id)["labels"] == kept
            [select] = [c for row in chosen["data"]["components"] for c in row["components"] if c["type"] == 3]
            assert [o["value"] for o in select["options"] if o["default"]] == kept and len(select["options"]) == len(
                offered
            )

            modal = serve.send(di.click(edit, MAINTAINER, message=card)).body
            reply = str(_arguments(redis_conn, reply_id)["body"])
            assert modal["type"] == 9 and modal["data"]["components"][0]["components"][0]["value"] == reply
            modal_id = modal["data"]["custom_id"]
            outsider = serve.send(
                di.modal_submit(modal_id, {"body": "Close this, it is spam."}, OUTSIDER, message=card)
            ).body
            assert outsider["type"] == 4 and _arguments(redis_conn, reply_id)["body"] == reply
            edited = serve.send(di.modal_submit(modal_id, {"body": EDITED}, MAINTAINER, message=card)).body
            assert edited["type"] == 7 and "log<U+200B> from 2.3" in json.dumps(
                edited["data"]["embeds"], ensure_ascii=False
            )

            for pid in (labels_id, reply_id):
                assert serve.send(di.click(APPROVE_PREFIX + pid, MAINTAINER, message=card)).body == {"type": 6}
            wait_for(
                lambda: next(
                    (
                        m
                        for m in discord_api.channel(di.CHANNEL_ID)
                        if m["id"] == card["id"] and m["content"].count("done.") == 2
                    ),
                    None,
                ),
                what="both actions done",
            )
            late = serve.send(di.select(pick, offered, MAINTAINER, message=card)).body
            late_edit = serve.send(di.modal_submit(modal_id, {"body": "A later edit"}, MAINTAINER, message=card)).body
            assert late["type"] == 4 and late_edit["type"] == 4
            discord_api.assert_valid()
            assert not serve.problems
        [labelled] = github.requests("POST", r"/labels$")
        assert labelled.body == {"labels": kept}
        [comment] = github.requests("POST", r"/comments$")
        assert comment.path == f"/repos/acme/rocket/issues/{issue['number']}/comments"
        assert comment.body["body"].startswith(EDITED) and "approved by maintainer on Discord" in comment.body["body"]
        assert _arguments(redis_conn, labels_id)["labels"] == kept
        assert github.violations == []
