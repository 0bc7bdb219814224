"""The Slack stand-in's HTTP side: Web API calls as form or JSON bodies, and `response_url` posts."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

if TYPE_CHECKING:
    from tests.standins.slack_api import SlackAPI


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = (
        True  # headers and body go out in two writes: don't let the body wait ~40 ms for a delayed ACK
    )

    @property
    def api(self) -> SlackAPI:
        return self.server.owner  # type: ignore[attr-defined]

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        args = parse(raw, self.headers.get("Content-Type") or "")
        if self.path.startswith("/response/"):
            self.api.record_response(self.path.removeprefix("/response/"), args)
            self._send(200, b"ok", "text/plain")
            return
        if not self.path.startswith("/api/"):
            self._send(404, b"not found", "text/plain")
            return
        status, reply, headers = self.api.handle(
            self.path.removeprefix("/api/"), args, self.headers.get("Authorization")
        )
        self._send(status, json.dumps(reply).encode(), "application/json; charset=utf-8", headers)

    def do_GET(self) -> None:  # noqa: N802 - Web API methods read with GET take their arguments in the query
        """Web API reads (`conversations.history`), and the browser's side of Sign in with Slack: the authorize page."""
        path, _, query = self.path.partition("?")
        if path == "/openid/connect/authorize":
            status, headers, body = self.api.openid.authorize({k: v[0] for k, v in parse_qs(query).items()})
            self._send(status, body, "text/plain", headers)
            return
        if not path.startswith("/api/"):
            self._send(404, b"not found", "text/plain")
            return
        args = {k: v[0] for k, v in parse_qs(query).items()}
        status, reply, headers = self.api.handle(path.removeprefix("/api/"), args, self.headers.get("Authorization"))
        self._send(status, json.dumps(reply).encode(), "application/json; charset=utf-8", headers)

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def parse(raw: bytes, content_type: str) -> dict[str, Any]:
    if not raw:
        return {}
    if content_type.startswith("application/json"):
        value = json.loads(raw)
        return value if isinstance(value, dict) else {}
    args: dict[str, Any] = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
    for key in ("blocks", "chunks", "attachments", "prompts", "loading_messages", "metadata"):
        if isinstance(args.get(key), str):
            args[key] = json.loads(args[key])
    return args
