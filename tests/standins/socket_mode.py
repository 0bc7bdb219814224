"""A local stand-in for Slack's Socket Mode WebSocket: hand an envelope to the app, read its ack.

`apps.connections.open` on the Web API stand-in returns this server's `ws://127.0.0.1:PORT/...`
URL; slack_sdk's built-in Socket Mode client connects over plain TCP to a port other than 443.
Implements just enough RFC 6455: the handshake, text/ping/pong/close frames, client masking.
"""

from __future__ import annotations

import base64
import hashlib
import json
import queue
import socket
import struct
import threading
import uuid
from typing import Any

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class SocketModeServer:
    """Accepts Socket Mode clients; `send_envelope` delivers to the newest one, `acks` collects replies."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._clients: list[socket.socket] = []
        self._lock = threading.Lock()
        self.acks: queue.Queue[dict[str, Any]] = queue.Queue()
        self.connected = threading.Event()
        self._closed = False

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._listener.getsockname()[1]}/link/?ticket=test"

    def start(self) -> SocketModeServer:
        threading.Thread(target=self._accept, name="socket-mode-standin", daemon=True).start()
        return self

    def close(self) -> None:
        self._closed = True
        for sock in [self._listener, *self._clients]:
            try:
                sock.close()
            except OSError:
                pass

    def send_envelope(self, payload: dict[str, Any], *, kind: str = "events_api", retry_attempt: int = 0) -> str:
        """Deliver one envelope as Slack does; returns its envelope_id."""
        envelope_id = str(uuid.uuid4())
        message = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
        }
        with self._lock:
            client = self._clients[-1]
        _send(client, TEXT, json.dumps(message).encode())
        return envelope_id

    def ack_for(self, envelope_id: str, timeout: float) -> dict[str, Any] | None:
        """The app's ack for an envelope, or None if none came within `timeout` (Slack would retry)."""
        try:
            while True:
                ack = self.acks.get(timeout=timeout)
                if ack.get("envelope_id") == envelope_id:
                    return ack
        except queue.Empty:
            return None

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            client.setsockopt(
                socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
            )  # a frame goes out at once, no delayed-ACK wait
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = client.recv(4096)
                if not chunk:
                    return
                request += chunk
            key = next(
                line.split(":", 1)[1].strip()
                for line in request.decode().split("\r\n")
                if line.lower().startswith("sec-websocket-key:")
            )
            accept = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
            client.sendall(
                (
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Accept: {accept}\r\n\r\n"
                ).encode()
            )
            with self._lock:
                self._clients.append(client)
            _send(client, TEXT, json.dumps({"type": "hello", "num_connections": 1}).encode())
            self.connected.set()
            while True:
                opcode, data = _receive(client)
                if opcode == PING:
                    _send(client, PONG, data)
                elif opcode == TEXT:
                    self.acks.put(json.loads(data))
                elif opcode == CLOSE:
                    return
        except (OSError, StopIteration, ValueError):
            return


def _send(sock: socket.socket, opcode: int, data: bytes) -> None:
    head = bytes([0x80 | opcode])
    if len(data) < 126:
        head += bytes([len(data)])
    elif len(data) < 1 << 16:
        head += bytes([126]) + struct.pack("!H", len(data))
    else:
        head += bytes([127]) + struct.pack("!Q", len(data))
    sock.sendall(head + data)


def _exactly(sock: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise OSError("closed")
        out += chunk
    return out


def _receive(sock: socket.socket) -> tuple[int, bytes]:
    first, second = _exactly(sock, 2)
    opcode, masked, length = first & 0x0F, second & 0x80, second & 0x7F
    if length == 126:
        length = struct.unpack("!H", _exactly(sock, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", _exactly(sock, 8))[0]
    mask = _exactly(sock, 4) if masked else b"\0\0\0\0"
    data = bytes(b ^ mask[i % 4] for i, b in enumerate(_exactly(sock, length)))
    return opcode, data
