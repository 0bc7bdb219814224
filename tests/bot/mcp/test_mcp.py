"""The MCP server, driven by the official SDK's own client over both transports (issue 27).

stdio: `atlas mcp` as its own process. HTTP: `/mcp` on the real waitress server of `atlas serve`,
behind ATLAS_MCP_TOKEN. Both list exactly the read tools with their strict schemas, call them, refuse
a side-effect tool by name, and over HTTP refuse a request without the right token.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from atlas.errors import ConfigError
from atlas.settings import Settings
from bot.mcp.http import endpoint
from bot.web.serve import http_server
from tests.support.mcp_clients import OpensGetStream, ts_like_client
from tests.support.paths import REPO
from tools import v2_registry

ROOT = REPO
TOKEN = "t" * 20 + "-mcp-test-token"
SIDE_EFFECTS = {
    "add_labels",
    "post_comment",
    "close_issue",
    "create_issue",
    "link_issue",
}  # link_issue: tied to a chat thread
READ = [n for n in v2_registry().names() if n not in SIDE_EFFECTS and n != "read_more"]


async def _exercise(client: Client) -> dict[str, Any]:
    listed = await client.list_tools()
    found = await client.call_tool("search_code", {"query": "compute_delay", "path_prefix": None, "limit": 2})
    refused = await client.call_tool("close_issue", {"issue_id": 1, "reason": "completed"})
    bad = await client.call_tool("read_file", {"path": "../../etc/passwd", "start": 1, "end": 2})
    return {"tools": listed.tools, "found": found, "refused": refused, "bad": bad}


def _check(seen: dict[str, Any]) -> None:
    assert [t.name for t in seen["tools"]] == READ and not SIDE_EFFECTS & {t.name for t in seen["tools"]}
    for tool in seen["tools"]:
        assert tool.description and "Use it" in tool.description
        assert tool.input_schema["additionalProperties"] is False and tool.annotations.read_only_hint is True
    assert not seen["found"].is_error and "orbit/retry.py L11-" in seen["found"].content[0].text
    assert "/blob/" in seen["found"].content[0].text
    assert seen["refused"].is_error and "close_issue" in seen["refused"].content[0].text
    assert seen["bad"].is_error and seen["bad"].content[0].text.startswith("Error: No file")


def test_stdio_lists_and_calls_the_read_tools_and_no_write(tmp_path: Path) -> None:
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT)), "ATLAS_HOME": str(tmp_path / "home")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "atlas.cli.main", "mcp"], env=env, cwd=str(ROOT))

    async def run() -> dict[str, Any]:
        with anyio.fail_after(60):
            async with Client(params) as client:
                return await _exercise(client)

    _check(anyio.run(run))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    settings = replace(Settings(home=tmp_path / "home", semantic_docs=False), mcp_token=TOKEN)
    mcp = endpoint(settings)
    assert mcp is not None
    server = http_server(None, port=0, mcp=mcp, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}/mcp"
    finally:
        server.close()
        mcp.close()


def _client(url: str, token: str | None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30)))


def test_http_lists_and_calls_the_read_tools_with_the_token(served: str) -> None:
    """Through a client that opens the GET stream after initialize, as the TypeScript SDK's does (issue 35):
    the server offers no stream, so the GET is a 405 at once and the calls go on."""
    transport = OpensGetStream()

    async def run() -> dict[str, Any]:
        with anyio.fail_after(60):
            async with ts_like_client(served, TOKEN, transport) as client:
                return await _exercise(client)

    _check(anyio.run(run))
    assert transport.get_statuses == [405]


@pytest.mark.parametrize("token", [None, "wrong-" + TOKEN])
def test_http_refuses_without_the_right_token(served: str, token: str | None) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx2.post(served, json=body, headers={**headers, "Accept": "application/json, text/event-stream"})
    assert response.status_code == 401 and "tools" not in response.text

    async def run() -> None:
        with anyio.fail_after(30):
            async with _client(served, token) as client:
                await client.list_tools()

    with pytest.raises(BaseException) as refused:  # noqa: B017 (the SDK's client wraps the 401 in a version-dependent exception group)
        anyio.run(run)
    assert not isinstance(refused.value, TimeoutError), "the client waited instead of being refused"


def test_without_a_token_there_is_no_endpoint_and_a_short_token_is_refused(tmp_path: Path) -> None:
    assert endpoint(Settings(home=tmp_path)) is None
    with pytest.raises(ConfigError, match="ATLAS_MCP_TOKEN must be at least 16"):
        Settings.from_env({"ATLAS_MCP_TOKEN": "short"})
    assert Settings.from_env({"ATLAS_MCP_TOKEN": TOKEN}).mcp_token == TOKEN
    assert TOKEN not in repr(Settings.from_env({"ATLAS_MCP_TOKEN": TOKEN}))
