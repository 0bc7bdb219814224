"""Discord signs every interaction: Ed25519 over the timestamp followed by the raw body, checked
with the application's public key before anything else reads the request."""

from __future__ import annotations

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey


class Verifier:
    """Checks `X-Signature-Ed25519` / `X-Signature-Timestamp` against `DISCORD_PUBLIC_KEY` (hex)."""

    def __init__(self, public_key_hex: str) -> None:
        self._key = VerifyKey(bytes.fromhex(public_key_hex))

    def valid(self, signature_hex: str | None, timestamp: str | None, body: bytes) -> bool:
        """True only for a well-formed signature by the application's key over timestamp + body."""
        if not signature_hex or not timestamp:
            return False
        try:
            self._key.verify(timestamp.encode() + body, bytes.fromhex(signature_hex))
            return True
        except (BadSignatureError, ValueError):
            return False
