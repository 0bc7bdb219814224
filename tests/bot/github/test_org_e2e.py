"""Issue 38's "Done when", through the stand-ins with a real worker: two repositories on the GitHub stand-in,
one `atlas serve` (Slack and the webhook), one `atlas worker`. A mention in each mapped channel is answered from
its own repository only; an unmapped channel's search names both; `issues.opened` on each posts its card in its
own triage channel; an approved comment lands on the right repository only; a removed repository is refused."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from atlas import served_repos
from bot.slack.app import create_app
from bot.slack.deps import build
from bot.slack.views.approval import APPROVE_ACTION
from bot.web.serve import github_webhook, http_server
from tests.standins.github_webhooks import SECRET as WEBHOOK_SECRET
from tests.standins.github_webhooks import deliver, payload
from tests.standins.responses_api import Call, ScriptedModel, reply_calls, reply_text
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender, mention
from tests.standins.slack_fixtures import BackgroundServer
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import is_card, outputs_sent, pending_id
from tests.support.org_harness import Org, two_repositories
from tests.support.processes import wait_for, worker_process

LIB, CLI, GENERAL = "C0LIB", "C0CLI", "C0GENERAL"  # acme/rocket's channel, acme/cli's, one about neither
TRIAGE_LIB, TRIAGE_CLI = "C0TRIAGELIB", "C0TRIAGECLI"
MAINTAINER = "U0MAINT"


@dataclass
class Up:
    org: Org
    slack: SlackAPI
    model: ScriptedModel
    send: SlackSender
    webhook: str
    conn: redis.Redis

    def ask(self, channel: str, text: str, ts: str) -> str:
        assert self.send.event(mention(text, channel=channel, user="U0ASKER", ts=ts)).status == 200
        return ts

    def answered(self, channel: str, ts: str, text: str) -> None:
        wait_for(
            lambda: any(
                text in m.get("text", "") + json.dumps(m.get("blocks", [])) for m in self.slack.thread(channel, ts)
            ),
            timeout=90,
            what=f"the answer in {channel}",
        )

    def top(self, channel: str) -> list[dict[str, Any]]:
        return [m for (ch, _), m in self.slack.messages.items() if ch == channel and not m.get("thread_ts")]


@contextmanager
def org_stack(atlas_env: dict[str, str]) -> Iterator[Up]:
    with SlackAPI() as slack, ScriptedModel() as model:
        env = {
            **atlas_env,
            **model.env(),
            **slack.env(),
            "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "SLACK_SIGNING_SECRET": SECRET,
            "ATLAS_APPROVERS": MAINTAINER,
            "ATLAS_MODEL_RETRIES": "0",
            "ATLAS_CHANNEL_REPOS": f"{LIB}=acme/rocket,{CLI}=acme/cli",
            "ATLAS_TRIAGE_CHANNEL": TRIAGE_LIB,
            "ATLAS_TRIAGE_CHANNELS": f"acme/cli={TRIAGE_CLI}",
            "ATLAS_TRIAGE_SKIP_WRITERS": "off",
        }
        with two_repositories(env, issues=24, comments=10) as org:
            deps = build(org.settings)
            server = BackgroundServer(
                http_server(create_app(org.settings, deps), host="127.0.0.1", github=github_webhook(org.settings))
            ).start()
            base = f"http://127.0.0.1:{server.port}"
            try:
                yield Up(
                    org,
                    slack,
                    model,
                    SlackSender(base + "/slack/events"),
                    base + "/github/webhook",
                    redis.Redis.from_url(env["REDIS_URL"]),
                )
            finally:
                server.close()
                deps.background.shutdown(wait=True)
            assert org.api.violations == []


def _search(call_id: str) -> Call:
    return Call(
        "search_issues", {"query": "the", "state": None, "limit": 20, "detail": "concise", "repo": None}, call_id
    )


def _open(repo) -> int:  # type: ignore[no-untyped-def]
    return next(n for n, i in sorted(repo.issues.items()) if "pull_request" not in i and i["state"] == "open")


@pytest.mark.timeout(600)  # two syncs, two worker starts and eight runs: minutes on a loaded machine
def test_one_install_serves_two_repositories_end_to_end(atlas_env: dict[str, str]) -> None:
    with org_stack(atlas_env) as up:
        rocket, cli = up.org.first, up.org.second
        target = _open(cli)
        up.model.script(
            reply_calls([_search("s_lib")]),
            reply_text("From rocket."),
            reply_calls([_search("s_cli")]),
            reply_text("From the CLI."),
            reply_calls([_search("s_all")]),
            reply_text("From both."),
            reply_calls([Call("post_comment", {"issue_id": target, "body": "Fixed in 2.0.", "repo": None}, "c_none")]),
            reply_calls(
                [Call("post_comment", {"issue_id": target, "body": "Fixed in 2.0.", "repo": "acme/cli"}, "c_cli")]
            ),
            reply_text("Commented once approved."),
        )
        with worker_process(up.org.env, "org-e2e-worker"):
            up.answered(LIB, up.ask(LIB, "what do people report?", "1700000100.000100"), "From rocket.")
            up.answered(CLI, up.ask(CLI, "what do people report?", "1700000200.000100"), "From the CLI.")
            up.answered(GENERAL, up.ask(GENERAL, "what do people report?", "1700000300.000100"), "From both.")
            sent = outputs_sent(up.model)
            assert "acme/rocket#" in sent["s_lib"] and "acme/cli#" not in sent["s_lib"]
            assert "acme/cli#" in sent["s_cli"] and "acme/rocket#" not in sent["s_cli"]
            assert "acme/rocket#" in sent["s_all"] and "acme/cli#" in sent["s_all"]

            thread = up.ask(CLI, f"comment on #{target} that it is fixed", "1700000400.000100")
            card = copy.deepcopy(
                wait_for(
                    lambda: next((m for m in up.slack.thread(CLI, thread) if is_card(m)), None),
                    timeout=90,
                    what="the approval card",
                )
            )
            assert "Say which repository" in outputs_sent(up.model)["c_none"]  # a write must name its repository
            assert "acme/cli" in json.dumps(card["blocks"])  # the card names it
            click = block_action(
                APPROVE_ACTION, pending_id(card), user=MAINTAINER, channel=CLI, message_ts=card["ts"], thread_ts=thread
            )
            click["message"] = {"ts": card["ts"], "thread_ts": thread, "blocks": card["blocks"]}
            assert up.send.interaction(click).status == 200
            wait_for(lambda: up.org.api.requests("POST", r"/comments$"), timeout=60, what="the comment")
            [posted] = up.org.api.requests("POST", r"/comments$")
            assert posted.path == f"/repos/acme/cli/issues/{target}/comments"
            assert not up.org.api.requests("POST", "/repos/acme/rocket/")

            for repo in (rocket, cli):
                issue = repo.add_issue("Crash when the config file is empty", "It crashes.", author="zoe")
                body = payload("issues-opened", repo, action="opened", issue=issue)
                assert deliver(up.webhook, "issues", body)[0] == 202
            for channel, repo in ((TRIAGE_LIB, rocket), (TRIAGE_CLI, cli)):
                card = wait_for(lambda c=channel: up.top(c) or None, timeout=90, what=f"a triage card in {channel}")[0]
                assert repo.html() in json.dumps(card) or repo.full_name in json.dumps(card)

        served_repos.change(up.conn, [], ["acme/cli"])  # the App's installation no longer covers it
        up.model.script(
            reply_calls([Call("post_comment", {"issue_id": target, "body": "Again.", "repo": "acme/cli"}, "c_gone")]),
            reply_text("It is not served any more."),
        )
        with worker_process(up.org.env, "org-e2e-worker-2"):
            up.ask(GENERAL, f"comment on acme/cli#{target} again", "1700000500.000100")
            wait_for(lambda: "c_gone" in outputs_sent(up.model), timeout=90, what="the refused write")
        assert "no longer served" in outputs_sent(up.model)["c_gone"]
        assert len(up.org.api.requests("POST", r"/comments$")) == 1
