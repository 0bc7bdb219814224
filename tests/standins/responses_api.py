"""A scripted stand-in for `POST /v1/responses`, checked against OpenAI's published spec.

Tests and benchmarks point the real `openai` client (or Atlas via `OPENAI_BASE_URL`) at
`ScriptedModel.base_url`. Each request is recorded, validated against `CreateResponse` and the
API's conversation rules, and answered with the next scripted turn; each reply is validated
against `Response` (or `ErrorResponse`). Anything wrong is kept in `failures`, and
`assert_done()` raises on it, so a test cannot pass on a request the real API would refuse or
a reply it would never send.

    with ScriptedModel() as model:
        model.script(reply_calls([("search_docs", {"query": "x", "k": 5})]), reply_text("done"))
        client = openai.OpenAI(base_url=model.base_url, api_key="test")
        ...
        model.assert_done()
"""

from __future__ import annotations

import json
import secrets
import threading
import traceback
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.standins import openai_spec
from tests.standins.conversation import Ledger, Refusal, unrealistic
from tests.standins.loopback import LoopbackHTTP
from tests.standins.responses_render import call_outputs, last_user_text, render
from tests.standins.turns import (
    Call,
    Message,
    NotAResponse,
    Reply,
    Thought,
    Turn,
    TurnSource,
    Usage,
    reply_calls,
    reply_error,
    reply_incomplete,
    reply_refusal,
    reply_text,
)

__all__ = [
    "Call",
    "Message",
    "NotAResponse",
    "RecordedRequest",
    "ScriptedModel",
    "Thought",
    "Turn",
    "TurnSource",
    "Usage",
    "call_outputs",
    "last_user_text",
    "reply_calls",
    "reply_error",
    "reply_incomplete",
    "reply_refusal",
    "reply_text",
]

RESPONSES_PATH = "/v1/responses"
# The stand-in's own 500s (no turn left, a turn that raised) are test bugs: tell the SDK not to retry them.
_NO_RETRY = {"x-should-retry": "false"}


@dataclass(frozen=True)
class RecordedRequest:
    """One request as received: method, path, lower-cased headers, parsed JSON body (None if unparsable)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class ScriptedModel(LoopbackHTTP):
    """Serves scripted turns on 127.0.0.1; strict unless a `fallback` turn covers an empty queue."""

    def __init__(self, *turns: TurnSource, fallback: TurnSource | None = None) -> None:
        openai_spec.load()  # fail at construction, not on the first request, if a named spec is missing
        self.fallback = fallback
        self.requests: list[RecordedRequest] = []
        self.replies: list[Reply] = []
        self.failures: list[str] = []
        self._queue: deque[TurnSource] = deque(turns)
        self._lock = threading.Lock()
        self._ledger = Ledger()

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`, what `openai.OpenAI(base_url=...)` and `OPENAI_BASE_URL` take."""
        return f"http://127.0.0.1:{self.port}/v1"

    def env(self) -> dict[str, str]:
        """Environment for an Atlas process that should talk to this stand-in."""
        return {"OPENAI_BASE_URL": self.base_url, "OPENAI_API_KEY": "test"}

    # -- scripting -------------------------------------------------------------------------
    def script(self, *turns: TurnSource) -> ScriptedModel:
        """Queue turns; each request takes the next one."""
        with self._lock:
            self._queue.extend(turns)
        return self

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def bodies(self) -> list[Any]:
        """The JSON bodies of `POST /v1/responses` requests, in arrival order."""
        with self._lock:
            return [r.body for r in self.requests if r.path == RESPONSES_PATH]

    def assert_done(self) -> None:
        """Raise if any check failed or scripted turns were never requested."""
        with self._lock:
            problems = list(self.failures)
            if self._queue:
                problems.append(f"{len(self._queue)} scripted turn(s) never requested")
        if problems:
            raise AssertionError("scripted model:\n  " + "\n  ".join(problems))

    # -- serving ---------------------------------------------------------------------------
    def _fail(self, message: str) -> None:
        with self._lock:
            self.failures.append(message)

    def _take(self) -> TurnSource | None:
        with self._lock:
            return self._queue.popleft() if self._queue else self.fallback

    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        """Record, check, answer. Every way out of here is a reply; failures are only recorded."""
        try:
            return self._handle(method, path, headers, raw)
        except Exception:  # a stand-in bug must fail the test, not drop the connection (which the SDK retries)
            self._fail(f"{method} {path}: the stand-in itself raised:\n{traceback.format_exc()}")
            return _refuse(Refusal(500, "The stand-in raised.", None, None, "server_error"), _NO_RETRY)

    def _handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        number = self._record(RecordedRequest(method, path, headers, body))
        where = f"request #{number} ({method} {path})"
        if (method, path.split("?", 1)[0]) != ("POST", RESPONSES_PATH):
            self._fail(f"{where}: the stand-in only serves POST {RESPONSES_PATH}")
            return _refuse(Refusal(404, f"Invalid URL ({method} {path})", None))
        if not isinstance(body, dict):
            self._fail(f"{where}: body is not a JSON object")
            return _refuse(Refusal(400, "We could not parse the JSON body of your request.", None))
        invalid = openai_spec.request_problems(body)
        if invalid:
            self._fail(f"{where} violates CreateResponse:\n    " + "\n    ".join(map(str, invalid)))
            first = invalid[0]
            code = "invalid_type" if first.keyword == "type" else "invalid_value"
            return _refuse(Refusal(400, f"Invalid '{first.path}': {first.message}", first.path or None, code))
        refusals = self._ledger.check_request(body)
        if refusals:
            self._fail(f"{where} would be refused by the API:\n    " + "\n    ".join(r.message for r in refusals))
            return _refuse(refusals[0])
        if body.get("stream"):
            self._fail(f"{where}: stream=true, but the stand-in (and Atlas) only use non-streaming responses")
            return _refuse(Refusal(400, "The scripted stand-in does not stream.", "stream"))
        return self._answer(where, body)

    def _record(self, request: RecordedRequest) -> int:
        with self._lock:
            self.requests.append(request)
            return len(self.requests)

    def _answer(self, where: str, request: dict[str, Any]) -> Reply:
        source = self._take()
        if source is None:
            asked = last_user_text(request)
            self._fail(f"{where}: unscripted request (no turns left, no fallback); last user text: {asked!r}")
            refusal = Refusal(500, "Unscripted request: the stand-in has no turn left.", None, None, "server_error")
            return _refuse(refusal, _NO_RETRY)
        if isinstance(source, NotAResponse):
            reply = Reply(200, {}, source.body)
            with self._lock:
                self.replies.append(reply)
            return reply
        try:
            made = source(request) if callable(source) else source
            reply = render(made, request) if isinstance(made, Turn) else Reply(200, {}, made)
        except Exception:
            self._fail(f"{where}: the scripted turn raised:\n{traceback.format_exc()}")
            return _refuse(Refusal(500, "The scripted turn raised.", None, None, "server_error"), _NO_RETRY)
        schema = "Response" if reply.status == 200 else "ErrorResponse"
        invalid = openai_spec.problems(schema, reply.body)
        if invalid:
            self._fail(f"{where}: the reply violates {schema}:\n    " + "\n    ".join(map(str, invalid)))
        if reply.status == 200:
            for problem in unrealistic(request, reply.body):
                self._fail(f"{where}: unrealistic script: {problem}")
            self._ledger.note_reply(reply.body)
        with self._lock:
            self.replies.append(reply)
        return reply


def _refuse(refusal: Refusal, headers: dict[str, str] | None = None) -> Reply:
    return Reply(refusal.status, dict(headers or {}), refusal.body())


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive, like the real API, so the SDK's connection pool behaves normally."""

    protocol_version = "HTTP/1.1"
    server_version = "scripted-openai"
    disable_nagle_algorithm = True  # headers and body go out in two writes; don't let them wait 40 ms for an ACK

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        model: ScriptedModel = self.server.owner  # type: ignore[attr-defined]
        reply = model.handle(self.command, self.path, headers, raw)
        raw_body = isinstance(reply.body, bytes)
        payload = reply.body if raw_body else json.dumps(reply.body).encode()
        self.send_response(reply.status)
        for name, value in _headers({**reply.headers, **({"content-type": "text/html"} if raw_body else {})}):
            self.send_header(name, value)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: requests are recorded on the model instead."""


def _headers(extra: dict[str, str]) -> Iterable[tuple[str, str]]:
    yield "content-type", extra.pop("content-type", "application/json")
    yield "x-request-id", f"req_{secrets.token_hex(16)}"
    yield from extra.items()


ScriptedModel.handler = _Handler
