"""The console served for tests: the real `atlas serve` WSGI stack (waitress) with only `/console/` on it,
a real Redis, the Slack stand-in for Sign in with Slack, and httpx as the browser."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import redis

from atlas.settings import Settings
from bot.console.app import console
from bot.web.serve import http_server
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import BackgroundServer
from workers.runs.state import AnsweredBy, Origin, RunState, StepRecord, Usage
from workers.runs.store import RunStore

TOKEN = "console-token-0123456789"


@dataclass
class Served:
    url: str  # the console's base, ending in /console
    settings: Settings
    api: SlackAPI
    conn: redis.Redis

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, follow_redirects=False, timeout=10)

    def signed_in(self) -> httpx.Client:
        """A browser signed in with the console token."""
        browser = self.client()
        form = browser.get("/signin")
        nonce = form.text.split('name="csrf" value="')[1].split('"')[0]
        done = browser.post("/signin", data={"csrf": nonce, "token": TOKEN})
        assert done.status_code == 303, done.text
        return browser


@contextmanager
def served(redis_url: str, conn: redis.Redis, **env: str) -> Iterator[Served]:
    """The console on a free port; ATLAS_CONSOLE_URL "SELF" is that port's own address (Slack's redirect back)."""
    sock = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/console"
    with SlackAPI() as api:
        base = {"REDIS_URL": redis_url, "ATLAS_CONSOLE_TOKEN": TOKEN, **api.env(), **env}
        if base.get("ATLAS_CONSOLE_URL") == "SELF":
            base["ATLAS_CONSOLE_URL"] = url + "/"
        settings = Settings.from_env({k: v for k, v in base.items() if v})
        app = console(settings, conn)
        assert app is not None
        server = BackgroundServer(http_server(None, sock=sock, console=app, threads=4)).start()
        try:
            yield Served(url, settings, api, conn)
        finally:
            server.close()


def finished_run(
    conn: redis.Redis, question: str = "How do retries back off?", answer: str = "They back off.", **origin: str
) -> RunState:
    """A run as a worker leaves it: answered, with a tool call and its result, saved (and so indexed)."""
    where = {
        "kind": "slack",
        "channel": "C1",
        "user": "U1",
        "thread_ts": "1700000000.000100",
        "team": "T0TEST",
        **origin,
    }
    run = RunState(question=question, status="done", origin=Origin(**where))  # type: ignore[arg-type]
    run.items = [
        {"type": "message", "role": "user", "content": question},
        {"type": "function_call", "call_id": "call_1", "name": "search_docs", "arguments": '{"query": "retries"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "retries.md: backs off exponentially"},
    ]
    run.steps = [StepRecord(index=1, tools=["search_docs"], input_tokens=800, output_tokens=20), StepRecord(index=2)]
    run.usage = Usage(input_tokens=1600, output_tokens=60)
    run.answer, run.stop_reason, run.sources, run.cost_usd = answer, "done", ["retries"], 0.0021
    run.answered_by = AnsweredBy(model="offline", data_dir="datasets/orbit")
    RunStore(conn).save(run)
    return run
