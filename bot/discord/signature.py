"""Discord signs every interaction: Ed25519 over the timestamp followed by the raw body, checked
with the application's public key before anything else reads the request. The timestamp is part of
what is signed, so a captured interaction keeps its old one: it is accepted only within five minutes
of this machine's clock (as Slack's requests), and a replay later is refused like a forgery."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

WINDOW_SECONDS = 300.0


class Verifier:
    """Checks `X-Signature-Ed25519` / `X-Signature-Timestamp` against `DISCORD_PUBLIC_KEY` (hex)."""

    def __init__(self, public_key_hex: str, *, clock: Callable[[], float] = time.time) -> None:
        self._key = VerifyKey(bytes.fromhex(public_key_hex))
        self.clock = clock

    def valid(self, signature_hex: str | None, timestamp: str | None, body: bytes) -> bool:
        """True only for a well-formed signature by the application's key over timestamp + body, with
        a timestamp (Unix seconds) within WINDOW_SECONDS of now."""
        if not signature_hex or not timestamp or not self.fresh(timestamp):
            return False
        try:
            self._key.verify(timestamp.encode() + body, bytes.fromhex(signature_hex))
            return True
        except (BadSignatureError, ValueError):
            return False

    def fresh(self, timestamp: str) -> bool:
        try:
            sent = float(timestamp)
        except ValueError:
            return False
        return math.isfinite(sent) and abs(self.clock() - sent) <= WINDOW_SECONDS
