"""Issue 38's "Done when", through the stand-ins with a real worker: two repositories on the GitHub stand-in,
one `atlas serve` (Slack and the webhook), one `atlas worker`. A mention in each mapped channel is answered from
its own repository only; an unmapped channel's search names both; `issues.opened` on each posts its card in its
own triage channel; an approved comment lands on the right repository only; a removed repository is refused."""

from __future__ import annotations

import copy
import json

import pytest

from atlas import served_repos
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins.github_webhooks import deliver, payload
from tests.standins.responses_api import Call, reply_calls, reply_text
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import is_card, outputs_sent, pending_id
from tests.support.org_stack import CLI, GENERAL, LIB, MAINTAINER, TRIAGE_CLI, TRIAGE_LIB, org_stack
from tests.support.processes import wait_for, worker_process


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
