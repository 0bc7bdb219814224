"""An MCP client proposes an action; it lands as an approval card in the triage channel, never as a write (issue 27).

`atlas mcp` (stdio) driven by the official SDK's client, a real `atlas worker`, the GitHub and Slack
stand-ins (tests/support/triage_inbox_harness.py): the label is on GitHub only after an approver's click.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.paths import REPO
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import actions, button, inbox, text_of

ROOT = REPO
REASON = "The traceback is in rocket/scheduler.py: this is a scheduler bug."


def _propose(env: dict[str, str], *calls: dict[str, Any]) -> tuple[list[str], list[Any]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "atlas.cli", "mcp"],
        cwd=str(ROOT),
        env={**env, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT)), "PATH": os.environ.get("PATH", "")},
    )

    async def run() -> tuple[list[str], list[Any]]:
        with anyio.fail_after(60):
            async with Client(params) as client:
                listed = [t.name for t in (await client.list_tools()).tools]
                return listed, [await client.call_tool("propose_action", c) for c in calls]

    return anyio.run(run)


def _label(issue: int, labels: list[str] | None, **rest: Any) -> dict[str, Any]:
    return {
        "issue_id": issue,
        "action": "label",
        "labels": labels,
        "body": None,
        "duplicate_of": None,
        "reason": REASON,
        **rest,
    }


def test_a_proposed_label_becomes_a_card_and_reaches_github_only_after_approve(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url) as box, box.worker("w-propose"):
        target = box.github.repo.add_issue("Scheduler stops after an upgrade", "It stopped.", author="zoe")
        listed, (first, again, wrong, write) = _propose(
            box.env,
            _label(target["number"], ["scheduler"]),
            _label(target["number"], ["scheduler"]),
            _label(target["number"], None),
            {**_label(target["number"], ["scheduler"]), "action": "add_labels"},
        )
        assert "propose_action" in listed and not {"add_labels", "post_comment", "close_issue"} & set(listed)
        assert not first.is_error and first.content[0].text.startswith("Proposed: a card for #")
        assert not again.is_error and again.content[0].text.startswith("Already proposed")  # one card, not two
        assert wrong.is_error and "needs labels" in wrong.content[0].text
        assert write.is_error and "action" in write.content[0].text
        card = box.cards(1)[0]
        assert actions(card) == ["labels"] and "Proposed over MCP by" in text_of(card) and REASON in text_of(card)
        assert not box.github.requests(
            "POST", rf"/issues/{target['number']}/labels"
        )  # nothing written before the click
        assert box.click(card, "labels") == 200
        wait_for(lambda: box.github.requests("POST", rf"/issues/{target['number']}/labels"), what="the approved label")
        run_id = button(card, "labels").split(".")[0]
        wait_for(lambda: box.run(run_id).status == "done", what="the proposal's run done")
        assert [label["name"] for label in box.github.repo.issues[target["number"]]["labels"]] == ["scheduler"]
        assert len(box.github.requests("POST", rf"/issues/{target['number']}/labels")) == 1
        assert len(box.messages()) == 1
        from workers.approvals.audit import entries

        # The audit names who asked: the client's name from its initialize, marked as MCP (issue 35; it was blank)
        requested = [e for e in entries(box.conn, issue=target["number"]) if e.kind == "request"]
        assert requested and {e.get("requester") for e in requested} == {"mcp:mcp"}


def test_over_http_a_proposal_is_queued_as_a_card_run_and_nothing_else(tmp_path: Path, redis_url: str) -> None:
    import threading

    import redis

    from atlas.settings import Settings
    from bot.mcp.http import endpoint
    from bot.web.serve import http_server
    from tests.support.mcp_clients import OpensGetStream, ts_like_client
    from workers.approvals.records import requester
    from workers.runs.store import RunStore

    token = "p" * 24
    settings = Settings.from_env(
        {
            "ATLAS_HOME": str(tmp_path / "home"),
            "REDIS_URL": redis_url,
            "ATLAS_MCP_TOKEN": token,
            "ATLAS_TRIAGE_CHANNEL": "C0TRIAGE",
            "ATLAS_SEMANTIC": "off",
            "ATLAS_MCP_CLIENT_NAME": "zoe's coding agent",
        }
    )
    mcp = endpoint(settings)
    assert mcp is not None
    server = http_server(None, port=0, mcp=mcp, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://127.0.0.1:{server.effective_port}/mcp"

    async def run() -> Any:
        with anyio.fail_after(60):
            async with ts_like_client(url, token, OpensGetStream()) as client:
                told = client.instructions or ""
                comment = {**_label(3, None), "action": "comment", "body": "Fixed in 3.1.2."}
                done = await client.call_tool("propose_action", comment)
                return told, done

    try:
        told, result = anyio.run(run)
    finally:
        server.close()
        mcp.close()
    # The instructions are true while propose_action is listed (issue 35: they said nothing changes anything)
    assert "propose_action" in told and "approver's click" in told and "Nothing here changes anything" not in told
    assert not result.is_error and "Proposed: a card for #3" in result.content[0].text
    run_id = result.content[0].text.split("(run ")[1].split(")")[0]
    queued = RunStore(redis.Redis.from_url(redis_url)).load(run_id)
    assert queued.status == "queued" and queued.origin.channel == "C0TRIAGE" and queued.triage is not None
    # What the client is told: the receipt, then the card value as the plain-text surface renders it (issue 37)
    from bot.mcp import wording
    from bot.plain.views.triage import triage_text
    from workers.messages.triage import triage_card_of

    card = triage_card_of(queued, None)
    assert card is not None and result.content[0].text == (
        wording.PROPOSED.format(ref="#3", run=run_id) + "\n\n" + triage_text(card)
    )
    assert queued.triage.proposal is not None and queued.triage.proposal["reason"] == REASON
    # Credited to the token's holder, not "an MCP client" (a stateless request carries no client info)
    assert queued.triage.proposal["by"] == "zoe's coding agent" and requester(queued) == "mcp:zoe's coding agent"
    assert [(a.tool, a.arguments, a.mode) for a in queued.triage.actions] == [
        ("post_comment", {"issue_id": 3, "body": "Fixed in 3.1.2."}, "draft")
    ]
