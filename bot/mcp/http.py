"""`/mcp` on `atlas serve`: the MCP server (bot/mcp/server.py) over streamable HTTP, behind a bearer token.

waitress serves WSGI and the SDK's transport is ASGI. This bridge runs the SDK's session manager on one
event loop in a daemon thread and hands it each request whole. The manager is stateless and answers with
JSON rather than SSE, so every request gets one complete response and nothing is held open between
requests: a GET (the stream clients open after initialize for the server's own messages) is answered 405
at once, as the transport says of a server that offers none, instead of holding a request thread.
Before anything else, an `Origin` that is not one of ATLAS_MCP_ORIGINS is refused 403 and a `Host` that
is neither loopback nor theirs 421 (DNS rebinding). A request without the token gets 401 with a pointer
to the protected-resource metadata (RFC 9728), served at METADATA_PATH: it names the resource and says the
token goes in the header; no authorization server is listed, since the token is configured, not issued.
Without ATLAS_MCP_TOKEN there is no endpoint: `/mcp` is not found.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hmac
import json
import logging
import threading
from collections.abc import Callable, Iterable, MutableMapping
from http import HTTPStatus
from typing import Any

from atlas.settings import Settings

log = logging.getLogger("atlas.bot.mcp")

MCP_PATH = "/mcp"
METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"  # RFC 9728 section 3.1: well-known before the path
REQUEST_SECONDS = 120.0  # a tool call is bounded well below this by its own work; a stuck one is 504
START_SECONDS = 10.0
MAX_BODY_BYTES = 1 << 20
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
UNAUTHORIZED = b'{"error": "unauthorized: send Authorization: Bearer <ATLAS_MCP_TOKEN>"}'
NO_STREAM = b'{"error": "this server offers no event stream: POST JSON-RPC requests to /mcp"}'
BAD_ORIGIN = b'{"error": "forbidden: this Origin is not one of ATLAS_MCP_ORIGINS"}'
BAD_HOST = b'{"error": "misdirected: this Host is not loopback nor one of ATLAS_MCP_ORIGINS"}'
JSON = ("Content-Type", "application/json")

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Response = tuple[int, list[tuple[str, str]], bytes]


def endpoint(settings: Settings) -> McpEndpoint | None:
    """The `/mcp` endpoint when ATLAS_MCP_TOKEN is set, else None (MCP over HTTP is off)."""
    return McpEndpoint(settings, settings.mcp_token) if settings.mcp_token else None


class McpEndpoint:
    """A WSGI application serving MCP's streamable HTTP transport to holders of the token."""

    def __init__(self, settings: Settings, token: str) -> None:
        # Imported here: `atlas serve` without MCP never loads the SDK (and its Starlette).
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        from bot.mcp.server import build_server

        self._token = token.encode()
        self._mcp, self._console_url, self._project = settings.mcp, settings.console.public_url, settings.project.name
        server = build_server(settings, credited=settings.mcp.client_name)  # the token is the one credential
        self._manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="atlas-mcp", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_SECONDS):
            raise RuntimeError("the MCP session manager did not start")

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        async with self._manager.run():
            self._ready.set()
            await self._stop.wait()

    def close(self) -> None:
        """Stop the event loop's thread (tests; a serving process ends with it)."""
        if self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(START_SECONDS)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        refused = self._misplaced(environ)
        if refused is not None:
            return _respond(start_response, refused)
        if environ.get("PATH_INFO") == METADATA_PATH:
            return _respond(start_response, (200, [JSON], self._metadata(environ)))
        if environ.get("REQUEST_METHOD") != "POST":
            return _respond(start_response, (405, [JSON, ("Allow", "POST")], NO_STREAM))
        if not self._authorized(environ):
            challenge = f'Bearer realm="atlas-mcp", resource_metadata="{self._base(environ)}{METADATA_PATH}"'
            return _respond(start_response, (401, [JSON, ("WWW-Authenticate", challenge)], UNAUTHORIZED))
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length > MAX_BODY_BYTES:
            return _respond(start_response, (413, [("Content-Type", "text/plain")], b"request body too large\n"))
        body = environ["wsgi.input"].read(length) if length else b""
        future = asyncio.run_coroutine_threadsafe(self._handle(_scope(environ), body), self._loop)
        try:
            return _respond(start_response, future.result(REQUEST_SECONDS))
        except concurrent.futures.TimeoutError:
            future.cancel()
            log.warning("an MCP request took longer than %s s", REQUEST_SECONDS)
            return _respond(start_response, (504, [("Content-Type", "text/plain")], b"timed out\n"))

    def _misplaced(self, environ: dict[str, Any]) -> Response | None:
        """403 for a browser at an origin not listed, 421 for a Host that is not ours (DNS rebinding); else None."""
        origin = environ.get("HTTP_ORIGIN")
        if origin is not None and not self._mcp.allows_origin(str(origin), self._console_url):
            log.info("refused an MCP request from Origin %.80r", origin)
            return 403, [JSON], BAD_ORIGIN
        host = str(environ.get("HTTP_HOST") or "")
        if not self._mcp.allows_host(host, self._console_url):
            log.info("refused an MCP request for Host %.80r", host)
            return 421, [JSON], BAD_HOST
        return None

    def _base(self, environ: dict[str, Any]) -> str:
        """The public origin `/mcp` is reached at: the first listed, else the Host this request named."""
        if self._mcp.origins:
            return self._mcp.origins[0]
        return f"{environ.get('wsgi.url_scheme', 'http')}://{environ.get('HTTP_HOST') or 'localhost'}"

    def _metadata(self, environ: dict[str, Any]) -> bytes:
        """RFC 9728's protected-resource metadata: the resource, and that the bearer token goes in the header."""
        return json.dumps(
            {
                "resource": self._base(environ) + MCP_PATH,
                "bearer_methods_supported": ["header"],
                "resource_name": f"Atlas ({self._project})",
            }
        ).encode()

    def _authorized(self, environ: dict[str, Any]) -> bool:
        scheme, _, given = str(environ.get("HTTP_AUTHORIZATION") or "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self._token)

    async def _handle(self, scope: dict[str, Any], body: bytes) -> Response:
        """Run one request through the SDK's ASGI handler and collect its whole response."""
        delivered = False
        finished = asyncio.Event()
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await finished.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    finished.set()

        await self._manager.handle_request(scope, receive, send)
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in start.get("headers", [])]
        return int(start.get("status", 500)), headers, b"".join(chunks)


def _scope(environ: dict[str, Any]) -> dict[str, Any]:
    """The ASGI HTTP scope of a WSGI request."""
    headers = [
        (k[5:].replace("_", "-").lower().encode("latin-1"), str(v).encode("latin-1"))
        for k, v in environ.items()
        if k.startswith("HTTP_")
    ]
    for key, name in (("CONTENT_TYPE", b"content-type"), ("CONTENT_LENGTH", b"content-length")):
        if environ.get(key):
            headers.append((name, str(environ[key]).encode("latin-1")))
    path = str(environ.get("PATH_INFO") or MCP_PATH)
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": environ.get("REQUEST_METHOD", "GET"),
        "scheme": environ.get("wsgi.url_scheme", "http"),
        "path": path,
        "raw_path": path.encode("latin-1"),
        "query_string": str(environ.get("QUERY_STRING") or "").encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "client": (environ.get("REMOTE_ADDR") or "", int(environ.get("REMOTE_PORT") or 0)),
        "server": (environ.get("SERVER_NAME") or "", int(environ.get("SERVER_PORT") or 0)),
    }


def _respond(start_response: Callable[..., Any], response: Response) -> list[bytes]:
    status, headers, body = response
    kept = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP]
    start_response(f"{status} {HTTPStatus(status).phrase}", kept)
    return [body]
