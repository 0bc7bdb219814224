"""A loopback TCP forwarder that can be cut and restored: Redis "going down" and coming back.

While down it drops every open connection and closes new ones as soon as they connect, which is
what a client sees when the server restarts or the network path fails.
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType
from urllib.parse import urlsplit


class TcpProxy:
    """Listens on a loopback TCP port and forwards to `target`: (host, port) or a unix socket path."""

    def __init__(self, target: tuple[str, int] | str) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._down = threading.Event()
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def port(self) -> int:
        return self._listener.getsockname()[1]

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> TcpProxy:
        threading.Thread(target=self._accept, name="tcp-proxy", daemon=True).start()
        return self

    def down(self) -> None:
        self._down.set()
        with self._lock:
            for sock in list(self._open):
                _close(sock)
            self._open.clear()

    def up(self) -> None:
        self._down.clear()

    def close(self) -> None:
        self._closed = True
        self.down()
        _close(self._listener)

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._down.is_set():
                _close(client)
                continue
            try:
                upstream = self._connect()
            except OSError:
                _close(client)
                continue
            for sock in (client, upstream):  # forward each chunk at once, as a direct connection would
                if sock.family != socket.AF_UNIX:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _connect(self) -> socket.socket:
        if isinstance(self.target, str):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(self.target)
            return sock
        sock = socket.create_connection(self.target, timeout=2)
        sock.settimeout(None)
        return sock

    @classmethod
    def for_redis(cls, url: str) -> TcpProxy:
        """A proxy in front of the Redis at `url` (redis://host:port or unix:///path)."""
        parts = urlsplit(url)
        if parts.scheme == "unix":
            return cls(parts.path)
        return cls((parts.hostname or "127.0.0.1", parts.port or 6379))

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                _close(sock)
                with self._lock:
                    self._open.discard(sock)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
