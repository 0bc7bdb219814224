"""MCP over an organization (issue 38) and its answers as plain text (issue 37), through the SDK's own client
against `/mcp` on the real waitress server with two repositories configured and the test Redis.

propose_action must name its repository when several are served; an unknown or removed one is an error value that
names the served ones; the proposal's run records the repository and goes to that repository's triage channel; what
the client is told is the plain-text view (bot/plain/views/) of the card value its proposal made, nothing composed
in bot/mcp."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
import redis

from atlas import served_repos
from atlas.settings import Settings
from bot.mcp import wording
from bot.mcp.http import endpoint
from bot.plain.views.triage import triage_text
from bot.web.serve import http_server
from tests.support.mcp_clients import OpensGetStream, ts_like_client
from tests.support.tools_dataset import ISSUES, make_dataset, write_issues
from workers.messages.triage import triage_card_of
from workers.runs.store import RunStore

LIB, CLI = "acme/lib", "acme/cli"
TOKEN = "o" * 24
TRIAGE, TRIAGE_CLI = "C0TRIAGE", "C0TRIAGECLI"


@dataclass
class Served:
    url: str
    conn: redis.Redis

    def calls(self, *calls: tuple[str, dict[str, Any]]) -> tuple[list[Any], list[Any]]:
        async def run() -> tuple[list[Any], list[Any]]:
            with anyio.fail_after(60):
                async with ts_like_client(self.url, TOKEN, OpensGetStream()) as client:
                    listed = (await client.list_tools()).tools
                    return listed, [await client.call_tool(name, args) for name, args in calls]

        return anyio.run(run)

    def card_text(self, result: Any) -> tuple[str, Any]:
        """The run a proposal's answer names, and the plain view of its card value as stored."""
        run = RunStore(self.conn).load(result.content[0].text.split("(run ")[1].split(")")[0])
        card = triage_card_of(run, None)
        assert card is not None
        return triage_text(card), run


@pytest.fixture
def served(tmp_path: Path, redis_url: str) -> Iterator[Served]:
    settings = Settings.from_env(
        {
            "ATLAS_HOME": str(tmp_path / "home"),
            "REDIS_URL": redis_url,
            "ATLAS_MCP_TOKEN": TOKEN,
            "ATLAS_GITHUB_REPOS": f"{LIB},{CLI}",
            "ATLAS_TRIAGE_CHANNEL": TRIAGE,
            "ATLAS_TRIAGE_CHANNELS": f"{CLI}={TRIAGE_CLI}",
            "ATLAS_SEMANTIC": "off",
            "ATLAS_MCP_CLIENT_NAME": "zoe's agent",
        }
    )
    write_issues(make_dataset(settings.for_repo(LIB).data_dir), ISSUES)
    cli = make_dataset(settings.for_repo(CLI).data_dir)
    write_issues(cli, [{"id": 9, "title": "Quokka flag ignored by the CLI", "body": "quokka", "state": "open"}])
    mcp = endpoint(settings)
    assert mcp is not None
    server = http_server(None, port=0, mcp=mcp, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        yield Served(f"http://127.0.0.1:{server.effective_port}/mcp", redis.Redis.from_url(redis_url))
    finally:
        server.close()
        mcp.close()


def _label(issue: int, repo: str | None, **rest: Any) -> dict[str, Any]:
    return {
        "issue_id": issue,
        "action": "label",
        "labels": ["bug"],
        "body": None,
        "duplicate_of": None,
        "reason": "A crash: a bug.",
        "repo": repo,
        **rest,
    }


def _search(repo: str | None) -> tuple[str, dict[str, Any]]:
    return "search_issues", {"query": "quokka cron", "state": None, "limit": 5, "detail": "concise", "repo": repo}


def test_propose_action_names_its_repository_and_answers_with_the_plain_view_of_its_card(served: Served) -> None:
    listed, (unnamed, unknown, proposed, again) = served.calls(
        ("propose_action", _label(9, None)),
        ("propose_action", _label(9, "acme/nope")),
        ("propose_action", _label(9, "cli")),  # a short name, as the read tools take it
        ("propose_action", _label(9, CLI)),
    )
    tool = next(t for t in listed if t.name == "propose_action")
    assert "repo" in tool.input_schema["required"] and LIB in tool.input_schema["properties"]["repo"]["description"]
    for refused in (unnamed, unknown):
        assert refused.is_error and f"{LIB}, {CLI}" in refused.content[0].text
    assert "acme/nope" in unknown.content[0].text
    assert not served.conn.keys("atlas:triage:proposal:*acme/lib*")  # nothing queued for a refused call

    assert not proposed.is_error
    card, run = served.card_text(proposed)
    assert run.triage.repo == CLI and run.origin.channel == TRIAGE_CLI  # recorded, and sent to its own channel
    receipt = wording.PROPOSED.format(ref=f"{CLI}#9", run=run.id)
    assert proposed.content[0].text == f"{receipt}\n\n{card}"
    assert CLI in card and "Add labels bug" in card  # the card itself names the repository
    assert not again.is_error
    assert again.content[0].text == wording.ALREADY.format(ref=f"{CLI}#9", run=run.id) + "\n\n" + card


def test_a_removed_repository_is_refused_for_proposals_and_reads_naming_the_served_ones(served: Served) -> None:
    served_repos.change(served.conn, added=[], removed=[CLI])  # the App's installation dropped it
    _, (write, read, other) = served.calls(
        ("propose_action", _label(9, CLI)), _search(CLI), ("propose_action", _label(1, LIB))
    )
    for refused in (write, read):
        text = refused.content[0].text
        assert refused.is_error and CLI in text and LIB in text and "Traceback" not in text
    assert not served.conn.keys("atlas:triage:proposal:acme/cli*")
    assert not other.is_error and served.card_text(other)[1].triage.repo == LIB


def test_read_tools_take_repo_over_the_real_client(served: Served) -> None:
    listed, (both, one, unknown) = served.calls(_search(None), _search(CLI), _search("acme/nope"))
    assert all("repo" in t.input_schema["properties"] for t in listed if t.name != "calculate")
    assert f"{LIB}#1" in both.content[0].text and f"{CLI}#9" in both.content[0].text
    assert f"{CLI}#9" in one.content[0].text and LIB not in one.content[0].text
    assert unknown.is_error and "acme/nope" in unknown.content[0].text and f"{LIB}, {CLI}" in unknown.content[0].text
