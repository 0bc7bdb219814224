"""A served organization for end-to-end tests (issue 38): two repositories on the GitHub stand-in, one `atlas
serve` (Slack and the webhook) with two channels mapped to them and one about neither, triage channels apart."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import redis

from bot.slack.app import create_app
from bot.slack.deps import build
from bot.web.serve import github_webhook, http_server
from tests.standins.github_webhooks import SECRET as WEBHOOK_SECRET
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender, mention
from tests.standins.slack_fixtures import BackgroundServer
from tests.support.org_harness import Org, two_repositories
from tests.support.processes import wait_for

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
