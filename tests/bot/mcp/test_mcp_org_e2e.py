"""An MCP client's proposal on the second of two repositories, end to end (issues 38 and 37): `/mcp` and Slack on one
real waitress server, the GitHub stand-in serving both repositories, a real `atlas worker`. The card goes to that
repository's triage channel, the approved comment lands on that repository and nowhere else, and the client, asking
again, is shown the card as it stands, decided, as the plain-text surface renders it."""

from __future__ import annotations

import copy
from typing import Any

import anyio
import pytest
import redis

from bot.mcp import wording
from bot.mcp.http import endpoint
from bot.plain.views.triage import triage_text
from bot.slack.app import create_app
from bot.slack.deps import build
from bot.slack.views.approval import APPROVE_ACTION
from bot.web.serve import http_server
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender
from tests.standins.slack_fixtures import BackgroundServer
from tests.standins.slack_interactions import block_action
from tests.support.mcp_clients import OpensGetStream, ts_like_client
from tests.support.org_harness import two_repositories
from tests.support.processes import wait_for, worker_process
from tests.support.triage_inbox_harness import button
from workers.messages.triage import triage_card_of
from workers.runs.store import RunStore

TOKEN = "e" * 24
TRIAGE, TRIAGE_CLI, MAINTAINER = "C0TRIAGE", "C0TRIAGECLI", "U0MAINT"


def _comment(issue: int, repo: str) -> dict[str, Any]:
    return {
        "issue_id": issue,
        "action": "comment",
        "labels": None,
        "body": "Fixed in 2.0.",
        "duplicate_of": None,
        "reason": "The fix shipped.",
        "repo": repo,
    }


def _call(url: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        with anyio.fail_after(60):
            async with ts_like_client(url, TOKEN, OpensGetStream()) as client:
                return await client.call_tool("propose_action", arguments)

    return anyio.run(run)


@pytest.mark.timeout(300)  # two syncs and a worker start
def test_a_proposal_on_the_second_repository_is_approved_there_only(atlas_env: dict[str, str]) -> None:
    with SlackAPI() as slack:
        env = {
            **atlas_env,
            **slack.env(),
            "SLACK_SIGNING_SECRET": SECRET,
            "ATLAS_APPROVERS": MAINTAINER,
            "ATLAS_TRIAGE_CHANNEL": TRIAGE,
            "ATLAS_TRIAGE_CHANNELS": f"acme/cli={TRIAGE_CLI}",
            "ATLAS_MCP_TOKEN": TOKEN,
        }
        with two_repositories(env, issues=12, comments=4) as org:
            target = next(
                n for n, i in sorted(org.second.issues.items()) if "pull_request" not in i and i["state"] == "open"
            )
            deps = build(org.settings)
            mcp = endpoint(org.settings)
            assert mcp is not None
            server = BackgroundServer(http_server(create_app(org.settings, deps), mcp=mcp)).start()
            base, conn = f"http://127.0.0.1:{server.port}", redis.Redis.from_url(env["REDIS_URL"])
            try:
                with worker_process(org.env, "mcp-org-e2e"):
                    first = _call(base + "/mcp", _comment(target, "cli"))
                    assert not first.is_error, first.content[0].text
                    card = copy.deepcopy(
                        wait_for(
                            lambda: next((m for (ch, _), m in slack.messages.items() if ch == TRIAGE_CLI), None),
                            timeout=90,
                            what="the proposal's card in acme/cli's triage channel",
                        )
                    )
                    assert not [m for (ch, _), m in slack.messages.items() if ch == TRIAGE]
                    click = block_action(
                        APPROVE_ACTION,
                        button(card, "reply"),
                        user=MAINTAINER,
                        channel=TRIAGE_CLI,
                        message_ts=card["ts"],
                    )
                    click["message"] = {"ts": card["ts"], "blocks": card["blocks"]}
                    assert SlackSender(base + "/slack/events").interaction(click).status == 200
                    wait_for(lambda: org.api.requests("POST", r"/comments$"), timeout=60, what="the approved comment")
                    run_id = button(card, "reply").split(".")[0]
                    wait_for(lambda: RunStore(conn).load(run_id).status == "done", what="the proposal's run done")
                    again = _call(base + "/mcp", _comment(target, "acme/cli"))
            finally:
                server.close()
                mcp.close()
                deps.background.shutdown(wait=True)
            [posted] = org.api.requests("POST", r"/comments$")
            assert posted.path == f"/repos/acme/cli/issues/{target}/comments"
            assert not org.api.requests("POST", "/repos/acme/rocket/")
            decided = triage_card_of(RunStore(conn).load(run_id), None)
            assert decided is not None
            receipt = wording.ALREADY.format(ref=f"acme/cli#{target}", run=run_id)
            assert not again.is_error and again.content[0].text == f"{receipt}\n\n{triage_text(decided)}"
            assert "Approved by" in again.content[0].text and "for acme/cli" in again.content[0].text
