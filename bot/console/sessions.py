"""Console sessions: a signed cookie naming a session kept in Redis, so signing out ends it everywhere.

The cookie holds a random id and its HMAC under a key made once per Redis (kept there, never shown);
Redis holds who signed in, how, and the session's CSRF token (the sign-out form carries it), under the
id's hash. A forged, altered or expired cookie is simply no session.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from dataclasses import dataclass

import redis

from atlas.connection import text

COOKIE = "atlas_console"
KEY = "atlas:console:key"


@dataclass(frozen=True)
class Session:
    user: str  # "token" or the Slack user id
    name: str  # what the header shows
    how: str  # "token", "bearer" or "slack"
    csrf: str
    team: str = ""  # a Slack session's workspace
    checked: float = 0.0  # when a Slack session's right to the console was last confirmed


def _session_key(sid: str) -> str:
    return f"atlas:console:session:{hashlib.sha256(sid.encode()).hexdigest()}"


class Sessions:
    """Create, find and end sessions; `sign` and `verify` also protect the sign-in forms' state."""

    def __init__(self, conn: redis.Redis, hours: float) -> None:
        self.conn = conn
        self.seconds = max(60, int(hours * 3600))
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def _secret(self) -> bytes:
        with self._lock:
            if self._key is None:
                self.conn.set(KEY, secrets.token_hex(32), nx=True)  # the first process makes it; every process reads it
                raw = self.conn.get(KEY)
                if raw is None:
                    raise redis.RedisError("the console's signing key vanished")
                self._key = text(raw).encode()
            return self._key

    def sign(self, value: str) -> str:
        return f"{value}.{hmac.new(self._secret(), value.encode(), hashlib.sha256).hexdigest()}"

    def verify(self, signed: str) -> str | None:
        value, _, mac = signed.rpartition(".")
        if not value or not hmac.compare_digest(self.sign(value), signed):
            return None
        return value

    def create(self, user: str, name: str, how: str, team: str = "") -> str:
        """A new session; returns the cookie's value."""
        sid = secrets.token_urlsafe(32)
        now = time.time()
        record = {
            "user": user,
            "name": name,
            "how": how,
            "csrf": secrets.token_urlsafe(24),
            "at": now,
            "team": team,
            "checked": now,
        }
        self.conn.set(_session_key(sid), json.dumps(record), ex=self.seconds)
        return self.sign(sid)

    def find(self, cookie: str | None) -> Session | None:
        sid = self.verify(cookie) if cookie else None
        if sid is None:
            return None
        raw = self.conn.get(_session_key(sid))
        if raw is None:
            return None
        data = json.loads(text(raw))
        return Session(
            user=data["user"],
            name=data["name"],
            how=data["how"],
            csrf=data["csrf"],
            team=data.get("team", ""),
            checked=float(data.get("checked", data.get("at", 0.0))),
        )

    def confirmed(self, cookie: str | None) -> None:
        """The session's right was confirmed now (its expiry unchanged)."""
        sid = self.verify(cookie) if cookie else None
        raw = self.conn.get(_session_key(sid)) if sid is not None else None
        if sid is not None and raw is not None:
            record = {**json.loads(text(raw)), "checked": time.time()}
            self.conn.set(_session_key(sid), json.dumps(record), keepttl=True)

    def end(self, cookie: str | None) -> None:
        sid = self.verify(cookie) if cookie else None
        if sid is not None:
            self.conn.delete(_session_key(sid))
