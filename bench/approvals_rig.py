"""The approvals bench's rig (bench/approvals.py): `atlas serve` and WORKERS workers with a scripted model that
proposes one label per question, so every mention leaves a card to click; and signed clicks built ahead of time
and fired at once over raw sockets, each request's send and answer timed."""

from __future__ import annotations

import json
import re
import selectors
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import redis

from atlas import embedded_redis
from bench.processes import atlas_serve, atlas_workers
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION
from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import call_outputs, last_user_text
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, sign
from tests.standins.slack_interactions import block_action
from tests.standins.turns import reply_calls, reply_text
from tests.support.processes import free_port

REPO = Path(__file__).resolve().parent.parent
WORKERS = 2
APPROVERS = ("U0MAINT1", "U0MAINT2")
CHANNEL = "C0BENCH"
LABEL = "needs-repro"
DEADLINE_SECONDS = 180  # any phase: a bounded wait, never a hang


@dataclass
class Stack:
    env: dict[str, str]
    api: SlackAPI
    conn: redis.Redis
    url: str
    home: Path
    data: Path


def _propose_then_answer(request: dict[str, Any]) -> Any:
    """First call of a run: propose labeling the issue it names; after the decision: answer."""
    found = re.search(r"#(\d+)", last_user_text(request))
    if call_outputs(request) or found is None:  # after the decision, or a floor mention: answer
        return reply_text("Done.")
    number = int(found.group(1))
    return reply_calls([("add_labels", {"issue_id": number, "labels": [LABEL]}, f"call_{number}")])


@contextmanager
def _stack() -> Iterator[Stack]:
    with (
        tempfile.TemporaryDirectory(prefix="atlas-bench-approvals-") as tmp,
        ScriptedModel(fallback=_propose_then_answer) as model,
    ):
        home = Path(tmp)
        data = home / "orbit"
        shutil.copytree(REPO / "datasets" / "orbit" / "docs", data / "docs")
        (data / "issues").mkdir(parents=True)
        shutil.copy(REPO / "datasets" / "orbit" / "issues" / "issues.jsonl", data / "issues" / "issues.jsonl")
        url = embedded_redis.ensure_running(home / "redis")
        api = SlackAPI().start()
        port = free_port()
        env = {
            "REDIS_URL": url,
            "ATLAS_HOME": str(home / "atlas"),
            "ATLAS_DATA": str(data),
            **api.env(),
            **model.env(),
            "SLACK_SIGNING_SECRET": SECRET,
            "ATLAS_APPROVERS": ",".join(APPROVERS),
            "ATLAS_MODEL_RETRIES": "0",
        }
        conn = redis.Redis.from_url(url)
        try:
            with atlas_serve(env, home, port), atlas_workers(env, home, conn, WORKERS, name="bench-approvals"):
                yield Stack(env, api, conn, f"http://127.0.0.1:{port}/slack/events", home, data)
        finally:
            api.stop()
            embedded_redis.stop(home / "redis")


def _click_bytes(url: str, card: dict[str, Any], user: str, approve: bool) -> bytes:
    """A signed block_actions request, serialised ahead of time so sending costs nothing."""
    value = next(
        e["value"]
        for b in card["blocks"]
        if b.get("type") == "actions"
        for e in b["elements"]
        if e.get("action_id") == APPROVE_ACTION
    )
    payload = block_action(
        APPROVE_ACTION if approve else DENY_ACTION,
        value,
        user=user,
        channel=CHANNEL,
        message_ts=card["ts"],
        thread_ts=card.get("thread_ts"),
    )
    payload["user"]["username"] = user.lower()
    body = urlencode({"payload": json.dumps(payload)})
    parts, stamp = urlsplit(url), int(time.time())
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body.encode())}\r\n"
        f"X-Slack-Request-Timestamp: {stamp}\r\nX-Slack-Signature: {sign(SECRET, stamp, body)}\r\n"
        f"Connection: close\r\n\r\n"
    )
    return head.encode() + body.encode()


def _burst(url: str, requests: list[tuple[str, bytes]]) -> list[tuple[str, float, float, float, int]]:
    """Send every request at once from one thread (non-blocking sockets, no GIL queueing on our side).

    Returns (pending id, sent at unix time, sent at monotonic, ack ms, HTTP status) per request.
    """
    parts = urlsplit(url)
    selector = selectors.DefaultSelector()
    open_: dict[socket.socket, tuple[str, float, float, float, bytes]] = {}
    socks = [(pid, raw, socket.create_connection((parts.hostname, parts.port))) for pid, raw in requests]
    for pid, raw, sock in socks:
        open_[sock] = (pid, time.time(), time.monotonic(), time.perf_counter(), b"")
        sock.sendall(raw)
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    results = []
    deadline = time.monotonic() + DEADLINE_SECONDS
    while open_ and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1.0):
            sock = key.fileobj
            pid, wall, mono, perf, got = open_[sock]  # type: ignore[index]
            chunk = sock.recv(65536)  # type: ignore[union-attr]
            got += chunk
            if chunk and b"\r\n\r\n" not in got:
                open_[sock] = (pid, wall, mono, perf, got)  # type: ignore[index]
                continue
            results.append((pid, wall, mono, (time.perf_counter() - perf) * 1000, int(got.split(b" ", 2)[1])))
            del open_[sock]  # type: ignore[arg-type]
            selector.unregister(sock)
            sock.close()  # type: ignore[union-attr]
    selector.close()
    if open_:
        raise TimeoutError("bench: click responses missing after the deadline")
    return results
