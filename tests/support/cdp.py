"""A small Chrome DevTools Protocol client over the standard library, to drive headless Chromium in tests.

Chromium is started with `--remote-debugging-port=0`; the port it picked is in `DevToolsActivePort` under its
profile folder; a page target's WebSocket (RFC 6455: masked client frames, fragmented server messages, ping)
carries JSON commands (`{"id", "method", "params"}`) and events. Errors a page reports (console errors,
uncaught exceptions, log entries such as CSP violations, dialogs) are collected in `errors`.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

BINARIES = ("chromium", "chromium-browser", "chromium-headless-shell", "headless_shell", "google-chrome")
START_SECONDS = 20.0
CALL_SECONDS = 20.0


def find_chromium() -> str | None:
    """A Chromium binary (ATLAS_TEST_CHROMIUM, else the first of `BINARIES` on PATH), or None."""
    named = os.environ.get("ATLAS_TEST_CHROMIUM")
    if named:
        return named if Path(named).is_file() else None
    return next((found for name in BINARIES if (found := shutil.which(name))), None)


class WebSocket:
    """One client WebSocket: text messages out (masked), whole messages in."""

    def __init__(self, url: str, timeout: float = CALL_SECONDS) -> None:
        where = urlsplit(url)
        self.sock = socket.create_connection((where.hostname or "127.0.0.1", where.port or 80), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {where.path} HTTP/1.1\r\nHost: {where.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the DevTools socket closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"no WebSocket upgrade: {head[:200]!r}")
        self._buffer = bytearray(head.split(b"\r\n\r\n", 1)[1])

    def send(self, text: str) -> None:
        self._frame(0x1, text.encode())

    def _frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        size = len(payload)
        head = bytes([0x80 | opcode])
        if size < 126:
            head += bytes([0x80 | size])
        elif size < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", size)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", size)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _read(self, count: int) -> bytes:
        while len(self._buffer) < count:
            chunk = self.sock.recv(max(65536, count - len(self._buffer)))
            if not chunk:
                raise ConnectionError("the DevTools socket closed")
            self._buffer += chunk
        out = bytes(self._buffer[:count])
        del self._buffer[:count]
        return out

    def receive(self) -> str:
        """The next whole text message (answering pings on the way)."""
        message = bytearray()
        while True:
            first, second = self._read(2)
            fin, opcode, size = first & 0x80, first & 0x0F, second & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._read(2))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if second & 0x80 else b""
            payload = self._read(size)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise ConnectionError("the DevTools socket was closed by Chromium")
            if opcode == 0x9:
                self._frame(0xA, payload)
                continue
            if opcode in (0x0, 0x1):
                message += payload
                if fin:
                    return bytes(message).decode()

    def close(self) -> None:
        self.sock.close()


class Browser:
    """Headless Chromium with one page, driven over CDP."""

    def __init__(self, binary: str, profile: Path, width: int = 412, height: int = 915) -> None:
        args = [
            binary,
            "--headless=new",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-extensions",
            f"--window-size={width},{height}",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.process = subprocess.Popen([*args, "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + START_SECONDS
        while not (port_file.is_file() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.process.kill()
                raise RuntimeError("Chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=CALL_SECONDS) as reply:
            targets = json.loads(reply.read())
        page = next(t for t in targets if t.get("type") == "page")
        self.ws = WebSocket(page["webSocketDebuggerUrl"])
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command; its result (events that arrive meanwhile are kept)."""
        self._id += 1
        wanted = self._id
        self.ws.send(json.dumps({"id": wanted, "method": method, "params": params}))
        deadline = time.monotonic() + CALL_SECONDS
        while time.monotonic() < deadline:
            message = json.loads(self.ws.receive())
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self._event(message)
        raise TimeoutError(method)

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method", ""), message.get("params", {})
        self.events.append(message)
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(f"console: {[a.get('value', a.get('description')) for a in params.get('args', [])]}")
        elif method == "Runtime.exceptionThrown":
            self.errors.append(f"exception: {params.get('exceptionDetails', {}).get('text')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(f"log: {params['entry'].get('text')} ({params['entry'].get('url', '')})")
        elif method == "Page.javascriptDialogOpening":
            self.errors.append(f"dialog: {params.get('message')}")

    def wait_for(self, method: str) -> dict[str, Any]:
        """The next event `method` (after those already seen)."""
        deadline = time.monotonic() + CALL_SECONDS
        while time.monotonic() < deadline:
            message = json.loads(self.ws.receive())
            self._event(message)
            if message.get("method") == method:
                found: dict[str, Any] = message.get("params", {})
                return found
        raise TimeoutError(method)

    def open(self, url: str) -> None:
        """Navigate and wait for the page's load event."""
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

    def submit(self, expression: str) -> None:
        """Run `expression` (which submits a form) and wait for the next page to load."""
        self.evaluate(expression)
        self.wait_for("Page.loadEventFired")

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
