"""MCP clients for the tests: the official Python SDK's, made to behave as the TypeScript SDK's client does.

By default the Python client speaks the 2026 revision (no initialize, no GET stream). The TypeScript client
(the one coding agents ship) does the initialize handshake and then opens `GET /mcp` for the server's own
messages after every `notifications/initialized`, taking a 405 as "this server offers no stream". This one
does the handshake (mode legacy) and opens the GET through httpx's transport, waiting only for the status
line (a real stream's body stays unread and is closed), and records each status.
"""

from __future__ import annotations

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

INITIALIZED = b'"notifications/initialized"'


class OpensGetStream(httpx2.AsyncBaseTransport):
    """After the initialized notification is sent, a GET with `Accept: text/event-stream`, as the TS client does."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.get_statuses: list[int] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and INITIALIZED in request.content:
            headers = {k: v for k, v in request.headers.items() if k.lower() not in ("content-type", "content-length")}
            stream = await self.inner.handle_async_request(
                httpx2.Request("GET", request.url, headers={**headers, "accept": "text/event-stream"})
            )
            self.get_statuses.append(stream.status_code)
            await stream.aclose()
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def ts_like_client(url: str, token: str | None, transport: OpensGetStream) -> Client:
    """The SDK's client over `transport`, with the bearer token when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=30, transport=transport)
    return Client(streamable_http_client(url, http_client=http), mode="legacy")
