"""The last GitHub webhook deliveries, kept for the console's Health page (which reads them): a capped list in Redis,
newest first.

`bot/github/webhook.py` notes each signed delivery with what it answered; the list keeps `KEEP` of them.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from atlas.connection import text

KEY = "atlas:console:deliveries"
KEEP = 50


def note(conn: redis.Redis, delivery: str, event: str, outcome: str) -> None:
    """Remember one delivery (a failure to remember is not the webhook's problem)."""
    try:
        pipe = conn.pipeline(transaction=False)
        pipe.lpush(
            KEY, json.dumps({"id": delivery[:80], "event": event[:60], "outcome": outcome[:80], "at": time.time()})
        )
        pipe.ltrim(KEY, 0, KEEP - 1)
        pipe.execute()
    except redis.RedisError:
        pass


def recent(conn: redis.Redis, count: int = 20) -> list[dict[str, Any]]:
    found: list[bytes] = conn.lrange(KEY, 0, count - 1)  # type: ignore[assignment]  # bytes replies
    return [json.loads(text(raw)) for raw in found]
