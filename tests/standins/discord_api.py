"""A local stand-in for Discord's REST API, reached through Atlas's client and hikari via `DISCORD_API_URL`.

It records every request and checks each body against Discord's OpenAPI description when the
description is present (`spec_checked` says whether it was; `problems` lists violations), plus
limits Discord enforces that the description does not (2,000 characters of content). It keeps
messages per channel and per interaction token, starts threads from messages (a thread's id is
its starter message's id; a second start fails with code 160004, as on Discord), answers
`/gateway/bot` with the Gateway stand-in's URL, and sends `X-RateLimit-*` headers and, on
demand, 429s with `retry_after` per route or globally.

As on Discord: content over 2,000 characters is a 400 (50035, "Must be 2000 or fewer in length.");
interaction tokens (issued by `InteractionSender`) live 15 minutes and die when the ack came after
3 seconds (404, 10015 Unknown Webhook); a thread archives after its `auto_archive_duration` without
a message, and editing in it is then a 400 (50083 Thread is archived) until it is unarchived
(`PATCH /channels/{id}` archived=false, or a new message); each bucket (discord_buckets.py)
answers 429 when spent. `advance(seconds)` moves the stand-in's clock (tokens, archiving).
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import threading
import time
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.standins import discord_checks, discord_messages
from tests.standins.discord_buckets import Buckets
from tests.standins.discord_spec import MISSING_REASON, Spec
from tests.standins.loopback import LoopbackHTTP

APPLICATION_ID = "1100000000000000001"
BOT_USER_ID = "1100000000000000002"
# Shaped like a real bot token (base64 of the bot's user id, a timestamp, an HMAC): hikari reads the id from it.
TOKEN = base64.b64encode(BOT_USER_ID.encode()).decode().rstrip("=") + ".GTestx.standin-signature-not-a-secret"
GUILD_ID = "1200000000000000001"
DISCORD_EPOCH_MS = 1420070400000
TOKEN_LIFETIME = 15 * 60
ACK_DEADLINE = 3.0
UNKNOWN_WEBHOOK = {"message": "Unknown Webhook", "code": 10015}
INVALID_WEBHOOK_TOKEN = {"message": "Invalid Webhook Token", "code": 50027}
THREAD_ARCHIVED = {"message": "Thread is archived", "code": 50083}


@dataclass
class Thread:
    parent: str
    duration_minutes: int
    active_at: float
    archived: bool = False


@dataclass
class Request:
    method: str
    path: str
    body: Any
    status: int = 200
    at: float = field(default_factory=time.monotonic)


class DiscordAPI(LoopbackHTTP):
    """Start it, point `DISCORD_API_URL` at `base_url`, read `requests` and `channel(...)` afterwards."""

    thread_name = "discord-standin"

    def __init__(self, *, token: str = TOKEN, gateway_url: str = "ws://127.0.0.1:1") -> None:
        self.token = token
        self.gateway_url = gateway_url
        self.spec = Spec.load()
        self.spec_checked = self.spec is not None
        self.spec_missing_reason = None if self.spec_checked else MISSING_REASON
        self.requests: list[Request] = []
        self.problems: list[str] = []
        self.messages: dict[str, list[dict[str, Any]]] = defaultdict(list)  # channel or "webhook:<token>" -> messages
        self.originals: dict[str, list[dict[str, Any]]] = defaultdict(list)  # interaction token -> edits of @original
        self.threads: dict[str, str] = {}  # thread id -> parent channel
        self.commands: dict[str, list[dict[str, Any]]] = {}  # "global" or guild id -> commands
        self.limited: dict[str, int] = {}  # path regex -> how many 429s still to send
        self.global_limited = 0
        self.retry_after = 0.05
        self.no_threads = False
        self.removed: set[str] = set()  # channels Atlas can no longer see (removed from the server): 403 Missing Access
        self.offset = 0.0  # seconds added to the wall clock: `advance`
        self.tokens: dict[str, tuple[float, float]] = {}  # interaction token -> (issued at, ack took seconds)
        self.thread_state: dict[str, Thread] = {}
        self.channel_objects: dict[str, dict[str, Any]] = {}  # GET /channels/{id}: channels a test made known
        self.members: dict[str, dict[str, Any]] = {}  # user id -> the server member GET /guilds/{g}/members/{id} gives
        self.buckets = Buckets()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._query: dict[str, str] = {}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    def env(self) -> dict[str, str]:
        return {
            "DISCORD_API_URL": self.base_url,
            "DISCORD_BOT_TOKEN": self.token,
            "DISCORD_APPLICATION_ID": APPLICATION_ID,
        }

    def next_id(self) -> str:
        """A snowflake as Discord makes it: milliseconds since its epoch in the top bits, so ids rise with time."""
        return str(((int(self.now() * 1000) - DISCORD_EPOCH_MS) << 22) | (next(self._ids) & 0x3FFFFF))

    def now(self) -> float:
        return time.time() + self.offset

    # -- scripting -----------------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Move the stand-in's clock on: tokens expire, idle threads archive."""
        self.offset += seconds

    def issue_token(self, token: str, *, at: float | None = None, ack_seconds: float = 0.0) -> None:
        """An interaction's token, as Discord issues it; `ack_seconds` over 3 kills it at once."""
        with self._lock:
            self.tokens[token] = (self.now() if at is None else at, ack_seconds)

    def archive(self, thread_id: str) -> None:
        with self._lock:
            self.thread_state[thread_id].archived = True

    def rate_limit(self, path_regex: str, times: int = 1) -> None:
        """The next `times` requests whose path matches get a 429 with `retry_after`."""
        self.limited[path_regex] = times

    # -- reading -------------------------------------------------------------------------------

    def channel(self, channel_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return [discord_messages.shown(m) for m in self.messages.get(channel_id, [])]

    def to(self, method: str, pattern: str) -> list[Request]:
        return [r for r in self.requests if r.method == method and re.search(pattern, r.path)]

    def assert_valid(self) -> None:
        """No request broke Discord's description or limits. Without the description only the spec part
        is skipped, with a warning that says why (the rest of the calling test has run)."""
        assert not self.problems, self.problems
        if not self.spec_checked:
            warnings.warn(f"request bodies not checked against the spec: {self.spec_missing_reason}", stacklevel=2)

    def answers(self, channel_id: str) -> list[dict[str, Any]]:
        """Messages whose content has the answer's footer (`stop: ...`)."""
        return [m for m in self.channel(channel_id) if "stop: " in (m.get("content") or "")]

    # -- handling ------------------------------------------------------------------------------

    def handle(self, method: str, raw_path: str, headers: Any, body: Any) -> tuple[int, dict[str, str], Any]:
        split = urlsplit(raw_path)
        path, query = split.path.removeprefix("/api/v10"), dict(parse_qsl(split.query))
        with self._lock:
            self.requests.append(request := Request(method, path, body))
            self._query = query  # the request's query string (GET /channels/{id}/messages), read under the lock
            refused, limits = discord_checks.refusal(self, method, path, headers, body)
            if refused is None:
                status, reply = self._apply(method, path, body)
                refused = (status, limits, reply)
            status, extra, reply = refused
            request.status = status
        return status, extra, reply

    def _apply(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        if path == "/gateway/bot":
            return 200, {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 14400000, "max_concurrency": 1},
            }
        if parts[0] == "applications" and parts[-1] == "commands" and method == "PUT":
            where = parts[3] if len(parts) == 5 else "global"
            self.commands[where] = [{**c, "id": self.next_id(), "application_id": parts[1]} for c in body]
            return 200, self.commands[where]
        if parts[0] == "channels" and len(parts) == 5 and parts[4] == "threads" and method == "POST":
            channel, message_id = parts[1], parts[3]
            if self.no_threads:
                return 400, {"message": "Cannot execute action on this channel type", "code": 50024}
            if message_id in self.threads:
                return 400, {"message": "A thread has already been created for this message", "code": 160004}
            self.threads[message_id] = channel
            self.thread_state[message_id] = Thread(channel, int(body.get("auto_archive_duration") or 4320), self.now())
            return 201, {"id": message_id, "type": 11, "parent_id": channel, "name": body.get("name")}
        if parts[0] == "channels" and len(parts) == 2 and method == "GET":  # Get Channel: the channel object, or 10003
            known = self.channel_objects.get(parts[1])
            return (200, known) if known is not None else (404, {"message": "Unknown Channel", "code": 10003})
        if parts[0] == "guilds" and len(parts) == 4 and parts[2] == "members" and method == "GET":  # Get Guild Member
            known = self.members.get(parts[3])
            return (200, known) if known is not None else (404, {"message": "Unknown Member", "code": 10007})
        if parts[0] == "channels" and len(parts) == 2 and method == "PATCH":
            thread = self.thread_state.get(parts[1])
            if thread is None:
                return 404, {"message": "Unknown Channel", "code": 10003}
            if "archived" in body:
                thread.archived, thread.active_at = bool(body["archived"]), self.now()
            return 200, {
                "id": parts[1],
                "type": 11,
                "parent_id": thread.parent,
                "thread_metadata": {"archived": thread.archived, "auto_archive_duration": thread.duration_minutes},
            }
        if parts[0] == "channels" and len(parts) == 3 and parts[2] == "messages" and method == "POST":
            if parts[1] in self.removed:
                return 403, {"message": "Missing Access", "code": 50001}
            if parts[1] in self.thread_state:  # a message unarchives an archived (unlocked) thread
                self.thread_state[parts[1]].archived, self.thread_state[parts[1]].active_at = False, self.now()
            return 200, discord_messages.post(self, parts[1], body)
        if parts[0] == "channels" and len(parts) == 3 and parts[2] == "messages" and method == "GET":
            return 200, discord_messages.history(self, parts[1], self._query)
        if parts[0] == "channels" and len(parts) == 4 and parts[2] == "messages":
            if self._archived(parts[1]):
                return 400, THREAD_ARCHIVED
            return discord_messages.edit(self, parts[1], parts[3], method, body)
        if parts[0] == "webhooks" and len(parts) >= 3:
            refused = self._dead_token(parts[1], parts[2])
            if refused is not None:
                return refused
        if parts[0] == "webhooks" and len(parts) == 3 and method == "POST":
            return 200, discord_messages.post(self, f"webhook:{parts[2]}", body)
        if parts[0] == "webhooks" and len(parts) == 5 and parts[4] == "@original" and method == "PATCH":
            self.originals[parts[2]].append(dict(body))
            return 200, {"id": parts[2][:19], "content": body.get("content"), "channel_id": "0"}
        if parts[0] == "webhooks" and len(parts) == 5 and method in ("PATCH", "DELETE"):  # a follow-up message
            return discord_messages.edit(self, f"webhook:{parts[2]}", parts[4], method, body)
        return 404, {"message": "404: Not Found", "code": 0}

    def _archived(self, channel: str) -> bool:
        """A thread archives `auto_archive_duration` minutes after its last activity."""
        thread = self.thread_state.get(channel)
        if thread is None:
            return False
        if not thread.archived and self.now() - thread.active_at >= thread.duration_minutes * 60:
            thread.archived = True
        return thread.archived

    def _dead_token(self, application_id: str, token: str) -> tuple[int, Any] | None:
        """Discord's answer for a webhook call with an interaction token that no longer works (None: it does)."""
        if application_id != APPLICATION_ID:
            return 401, INVALID_WEBHOOK_TOKEN
        issued = self.tokens.get(token)
        if issued is None or issued[1] > ACK_DEADLINE or self.now() - issued[0] >= TOKEN_LIFETIME:
            return 404, UNKNOWN_WEBHOOK
        return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out in two writes: don't let the body wait ~40 ms for a delayed ACK
    disable_nagle_algorithm = True

    def _serve(self) -> None:
        api: DiscordAPI = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        status, headers, reply = api.handle(self.command, self.path, self.headers, body)
        data = json.dumps(reply).encode() if reply is not None else b""
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


DiscordAPI.handler = _Handler
