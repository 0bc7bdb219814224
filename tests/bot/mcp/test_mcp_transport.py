"""`/mcp` on the real waitress server of `atlas serve`, held to MCP's Streamable HTTP transport and
authorization documents (issue 35).

A server that offers no event stream answers GET with 405 at once, so the GETs clients open after
initialize hold no request thread and Slack's events and `/healthz` are served beside them; an Origin
not listed is 403 and a rebinding Host 421; a 401 points at the protected-resource metadata (RFC 9728)
whose `resource` is the endpoint the client dialled.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from atlas.settings import Settings
from bot.mcp.http import endpoint
from bot.slack.app import create_app
from bot.web.serve import http_server
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SlackSender

TOKEN = "m" * 24
THREADS = 4
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {TOKEN}"}
WAIT = 10.0  # a client's patience: the old GET held a thread for 120 s


@dataclass
class Served:
    base: str
    port: int

    @property
    def mcp(self) -> str:
        return self.base + "/mcp"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with SlackAPI() as slack:
        env = {
            "ATLAS_HOME": str(tmp_path / "home"),
            "ATLAS_SEMANTIC": "off",
            "ATLAS_MCP_TOKEN": TOKEN,
            "ATLAS_MCP_ORIGINS": "https://atlas.example.org",
            **slack.env(),
            "SLACK_SIGNING_SECRET": "secret",
        }
        settings = Settings.from_env(env)
        mcp = endpoint(settings)
        assert mcp is not None
        server = http_server(create_app(settings), port=0, mcp=mcp, threads=THREADS)
        threading.Thread(target=server.run, daemon=True).start()
        try:
            yield Served(f"http://127.0.0.1:{server.effective_port}", server.effective_port)
        finally:
            server.close()
            mcp.close()


def test_get_streams_are_refused_at_once_and_hold_no_thread_from_other_routes(served: Served) -> None:
    streams = THREADS * 2  # more GETs than request threads: held, they would block every route on the port
    with ThreadPoolExecutor(streams) as pool:
        gets = [
            pool.submit(httpx2.get, served.mcp, headers={**ACCEPT, "Accept": "text/event-stream"}, timeout=WAIT)
            for _ in range(streams)
        ]
        health = httpx2.get(served.base + "/healthz", timeout=WAIT)
        challenge = SlackSender(served.base + "/slack/events", "secret").event(
            {"type": "url_verification", "challenge": "c-35", "token": "t"}, timeout=WAIT
        )
        answered = [g.result() for g in gets]
    assert health.status_code == 200 and challenge.status == 200 and "c-35" in challenge.body
    assert [r.status_code for r in answered] == [405] * streams
    assert all(r.headers["Allow"] == "POST" for r in answered)


def test_an_origin_not_listed_is_403_and_a_rebinding_host_is_421(served: Served) -> None:
    refused = httpx2.post(served.mcp, json=LIST, headers={**ACCEPT, "Origin": "http://evil.example"}, timeout=WAIT)
    assert refused.status_code == 403 and "tools" not in refused.text
    # DNS rebinding: the attacker's name resolves to this machine, so Origin and Host both carry it
    rebound = httpx2.post(
        served.mcp,
        json=LIST,
        timeout=WAIT,
        headers={**ACCEPT, "Origin": f"http://evil.example:{served.port}", "Host": f"evil.example:{served.port}"},
    )
    assert rebound.status_code == 403
    host_only = httpx2.post(
        served.mcp, json=LIST, headers={**ACCEPT, "Host": f"evil.example:{served.port}"}, timeout=WAIT
    )
    assert host_only.status_code == 421 and "tools" not in host_only.text
    listed = httpx2.post(
        served.mcp,
        json=LIST,
        timeout=WAIT,
        headers={**ACCEPT, "Origin": "https://atlas.example.org", "Host": "atlas.example.org"},
    )
    assert listed.status_code == 200 and "search_docs" in listed.text
    no_origin = httpx2.post(served.mcp, json=LIST, headers=ACCEPT, timeout=WAIT)  # not a browser
    assert no_origin.status_code == 200


def test_a_401_points_at_the_protected_resource_metadata(served: Served) -> None:
    refused = httpx2.post(served.mcp, json=LIST, headers={"Accept": ACCEPT["Accept"]}, timeout=WAIT)
    assert refused.status_code == 401
    challenge = refused.headers["WWW-Authenticate"]
    assert challenge.startswith("Bearer ") and 'resource_metadata="' in challenge
    where = challenge.split('resource_metadata="')[1].split('"')[0]
    assert where == "https://atlas.example.org/.well-known/oauth-protected-resource/mcp"
    document = httpx2.get(
        served.base + where.removeprefix("https://atlas.example.org"),
        timeout=WAIT,
        headers={"Host": "atlas.example.org"},
    )
    assert document.status_code == 200 and document.headers["Content-Type"] == "application/json"
    metadata = json.loads(document.text)
    assert metadata["resource"] == "https://atlas.example.org/mcp"
    assert metadata["bearer_methods_supported"] == ["header"]
    assert TOKEN not in document.text
