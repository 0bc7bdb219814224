"""Load tools for the Slack benchmarks: an instant Responses API, and a burst client for the endpoint.

The client must cost the machine almost nothing, or its own delays would be counted as the server's:
one thread, non-blocking sockets, every request serialised and signed before the clock starts.
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.standins.responses_render import response_body
from tests.standins.slack_events import SECRET, sign
from tests.standins.turns import reply_text

DEADLINE_SECONDS = 120


class ModelServer(ThreadingHTTPServer):
    daemon_threads = True


class InstantModel:
    """A Responses API that answers every request at once with the same completed text reply
    (`respond` is what a subclass changes: bench/concurrency.py's paced model)."""

    server_class: type[ThreadingHTTPServer] = ModelServer

    def __init__(self, answer: str) -> None:
        self.answer_turn = reply_text(answer)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; with Nagle's algorithm on, the body waits for the
            # client's delayed ACK (~40 ms), which read as 55-71 ms "mention -> answer" for ~13 ms of work.
            disable_nagle_algorithm = True

            def do_POST(self) -> None:  # noqa: N802
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                body = json.dumps(owner.respond(request)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = self.server_class(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def respond(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply body to one request."""
        return response_body(self.answer_turn, request)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def request_bytes(url: str, payload: dict[str, Any]) -> bytes:
    """A signed Events API request, serialised ahead of time so the client spends nothing per send."""
    parts = urlsplit(url)
    body = json.dumps(payload)
    stamp = int(time.time())
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body.encode())}\r\nX-Slack-Request-Timestamp: {stamp}\r\n"
        f"X-Slack-Signature: {sign(SECRET, stamp, body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body.encode()


def burst(url: str, requests: list[bytes]) -> list[tuple[float, int]]:
    """Send all requests at once from one thread (non-blocking sockets); (ms, status) per response.

    One selector loop instead of a thread per request: the load generator itself must not queue
    behind the GIL, or its own delays would be counted as the server's.
    """
    parts = urlsplit(url)
    selector = selectors.DefaultSelector()
    started: dict[socket.socket, float] = {}
    received: dict[socket.socket, bytes] = {}
    results: list[tuple[float, int]] = []
    for raw in requests:
        sock = socket.create_connection((parts.hostname, parts.port))
        started[sock] = time.perf_counter()
        sock.sendall(raw)
        sock.setblocking(False)
        received[sock] = b""
        selector.register(sock, selectors.EVENT_READ)
    deadline = time.monotonic() + DEADLINE_SECONDS
    while received and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1.0):
            sock = key.fileobj
            chunk = sock.recv(65536)  # type: ignore[union-attr]
            if chunk:
                received[sock] += chunk  # type: ignore[index]
                if b"\r\n\r\n" not in received[sock]:  # type: ignore[index]
                    continue
            elapsed = (time.perf_counter() - started[sock]) * 1000  # type: ignore[index]
            status = int(received.pop(sock).split(b" ", 2)[1])  # type: ignore[arg-type]
            selector.unregister(sock)
            sock.close()  # type: ignore[union-attr]
            results.append((elapsed, status))
    selector.close()
    if received:
        raise TimeoutError("bench: responses missing after the deadline")
    return results
