"""End to end on GitHub: a Slack mention, the model proposes closing a duplicate, an Approve click, and
the GitHub stand-in receives exactly one PATCH; a worker killed between that write and the ledger
record is settled from GitHub by the next worker, never written twice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import redis

from atlas.settings import Settings
from datasets import derived
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.standins.responses_api import Call, ScriptedModel, reply_calls, reply_text
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_settings, start_bot
from tests.support.approvals_harness import MAINTAINER, Stack, outputs_sent
from tests.support.github_harness import exported, run_sync
from workers.approvals import audit, ledger


@contextmanager
def github_stack(tmp_path: Path, redis_url: str) -> Iterator[tuple[Stack, GitHubAPI, Settings]]:
    home = tmp_path / "home"
    with GitHubAPI(generate(40, comments=30)) as github, SlackAPI() as api, ScriptedModel() as model:
        env = {
            "ATLAS_HOME": str(home),
            "REDIS_URL": redis_url,
            **model.env(),
            **api.env(),
            **github.env(),
            "ATLAS_APPROVERS": MAINTAINER,
            "ATLAS_MODEL_RETRIES": "0",
            "ATLAS_SEMANTIC": "off",
            "ATLAS_WORKER_HEARTBEAT_TTL": "3",
            "ATLAS_WORKER_MAINTENANCE": "1",
        }
        # docs search lexical, as in every e2e test (tests/conftest.py atlas_env): with it on, each worker loaded the
        # embedding model and embedded the synced docs before serving, 16-20 s of a card's 30 s wait under load
        settings = Settings.from_env(env)
        run_sync(github, settings)
        slack = slack_settings(api, redis_url, home)  # the web process: the workers' settings plus Slack's
        bot_settings = replace(
            settings,
            slack_bot_token=slack.slack_bot_token,
            slack_signing_secret=slack.slack_signing_secret,
            slack_api_url=slack.slack_api_url,
            queue_name=slack.queue_name,
            redis_url=redis_url,
        )
        assert bot_settings.fingerprint == settings.fingerprint
        bot, server = start_bot(bot_settings, api)
        try:
            yield (
                Stack(bot, api, model, redis.Redis.from_url(redis_url), settings.data_dir, env, home),
                github,
                settings,
            )
        finally:
            server.close()  # type: ignore[attr-defined]
            bot.deps.background.shutdown(wait=True)
        assert github.violations == []
        vectors = derived.root(settings.data_dir, settings.home) / "issues" / derived.DOCS_VECTORS
        assert not vectors.exists()  # no worker embedded the docs


def _pair(github: GitHubAPI) -> tuple[int, int]:
    numbers = [n for n, i in github.repo.issues.items() if i["state"] == "open" and "pull_request" not in i]
    return numbers[1], numbers[0]  # (the duplicate, the original)


def test_approved_close_as_duplicate_patches_github_once(tmp_path: Path, redis_url: str) -> None:
    with github_stack(tmp_path, redis_url) as (s, github, settings):
        dup, original = _pair(github)
        s.model.script(
            reply_calls(
                [Call("close_issue", {"issue_id": dup, "reason": "duplicate", "duplicate_of": original}, "call_dup")],
                text=f"#{dup} reports the same thing as #{original}.",
            ),
            reply_text(f"Closed #{dup} as a duplicate of #{original}."),
        )
        thread = s.ask(f"close #{dup} as a duplicate of #{original}")
        with s.worker("gh-w1"):
            (card,) = s.cards(thread)
            run = s.run_of(card)
            assert f"https://github.com/acme/rocket/issues/{dup}" in json.dumps(
                card["blocks"]
            )  # the card links to GitHub
            assert github.requests("PATCH") == []
            assert s.click(card, MAINTAINER) == 200
            final = s.wait_final(run.id)
        assert final.status == "done"
        [patch] = github.requests("PATCH")
        assert patch.path == f"/repos/acme/rocket/issues/{dup}"
        assert patch.body == {
            "state": "closed",
            "state_reason": "duplicate",
            "duplicate_issue_id": github.repo.issues[original]["id"],
        }
        assert github.repo.issues[dup]["state"] == "closed"
        row = exported(settings)[dup]
        assert row["state"] == "closed" and row["duplicate_of"] == original  # the local index at once
        assert outputs_sent(s.model)["call_dup"].startswith(f"Closed #{dup}")
        s.model.assert_done()


def test_worker_killed_after_the_write_is_settled_from_github_not_written_again(tmp_path: Path, redis_url: str) -> None:
    marker = tmp_path / "side-effect-done"
    with github_stack(tmp_path, redis_url) as (s, github, _):
        dup, original = _pair(github)
        s.model.script(
            reply_calls(
                [Call("close_issue", {"issue_id": dup, "reason": "duplicate", "duplicate_of": original}, "call_dup")]
            ),
            reply_text(f"Closed #{dup} as a duplicate of #{original}."),
        )
        thread = s.ask(f"close #{dup} as a duplicate of #{original}")
        _, run = s.approve_then_kill(thread, marker, "gh-doomed")
        assert len(github.requests("PATCH")) == 1
        assert ledger.entry_of(s.conn, run.id, "call_dup")["state"] == "executing"
        with s.worker("gh-survivor"):
            final = s.wait_final(run.id, timeout=150)  # a dead worker's RQ scheduler lock can take 61 s to lapse
        assert len(github.requests("PATCH")) == 1  # found closed on GitHub: not written again
        assert ledger.entry_of(s.conn, run.id, "call_dup")["state"] == "done"
        assert outputs_sent(s.model)["call_dup"].startswith(f'Closed #{dup} "')
        results = [e for e in audit.entries(s.conn) if e.kind == "result"]
        assert [e.get("decision") for e in results] == ["done"] and "found on the tracker" in str(
            results[0].get("result")
        )
        assert final.status == "done"
        s.model.assert_done()
