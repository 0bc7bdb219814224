"""Discord's per-bucket rate limits, as the stand-in enforces them.

Discord groups routes into buckets it names in `X-RateLimit-Bucket` (several routes can share one:
here editing and deleting a channel's messages do), and counts each bucket separately per major
parameter (the channel, the guild, or the webhook's id and token). A request over a bucket's limit
gets a 429 with `Retry-After`, `X-RateLimit-Scope: user` and the JSON body
`{"message", "retry_after", "global"}`, as https://discord.com/developers/docs/topics/rate-limits says.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

BUCKET_SIZE = 5
_MAJOR = re.compile(r"^/(channels|guilds)/(\d+)|^/webhooks/(\d+)/([^/?]+)")


@dataclass
class _Window:
    started: float
    used: int = 0


def bucket_of(method: str, path: str) -> tuple[str, str]:
    """(bucket hash, major parameter) for a request, shaped like Discord's grouping."""
    major = _MAJOR.match(path)
    where = (major.group(2) or f"{major.group(3)}/{major.group(4)}") if major else ""
    if re.fullmatch(r"/channels/\d+/messages/\d+", path) and method in ("PATCH", "DELETE"):
        return "b-message-modify", where  # two routes, one bucket: what a method+path key cannot know
    if path.startswith("/webhooks/"):
        return "b-webhook", where
    template = re.sub(r"/\d{5,}", "/:id", re.sub(r"^/webhooks/\d+/[^/]+", "/webhooks/:id/:token", path))
    return "b-" + f"{method}{template}".lower().replace("/", "-"), where


class Buckets:
    """Counts requests per (bucket, major parameter) in windows of `window` seconds (real time)."""

    def __init__(self, window: float = 0.001, size: int = BUCKET_SIZE) -> None:
        self.window, self.size = window, size
        self._windows: dict[tuple[str, str], _Window] = {}

    def take(self, method: str, path: str) -> tuple[bool, dict[str, str], float]:
        """(allowed, the X-RateLimit headers to send, retry_after when refused)."""
        bucket, major = bucket_of(method, path)
        now = time.monotonic()
        window = self._windows.get((bucket, major))
        if window is None or now >= window.started + self.window:
            window = self._windows[(bucket, major)] = _Window(now)
        reset_after = max(window.started + self.window - now, 0.0)
        headers = {
            "X-RateLimit-Limit": str(self.size),
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        }
        if window.used >= self.size:
            headers.update(
                {
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Scope": "user",
                    "Retry-After": str(max(math.ceil(reset_after), 1)),
                }
            )
            return False, headers, round(reset_after, 3)
        window.used += 1
        headers["X-RateLimit-Remaining"] = str(self.size - window.used)
        return True, headers, 0.0


def limited_body(retry_after: float, *, is_global: bool = False) -> dict[str, object]:
    """Discord's 429 body."""
    return {"message": "You are being rate limited.", "retry_after": retry_after, "global": is_global}
