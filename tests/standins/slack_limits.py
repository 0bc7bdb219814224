"""Two limits of Slack's the stand-in keeps (issue 35): the history tier of the app, and trigger_id expiry.

Since 2025 a distributed app outside the Marketplace gets `conversations.history` and `conversations.replies`
at one call a minute and at most 15 messages a page (a 429 with Retry-After past that); Marketplace and
internal apps keep Tier 3. A `trigger_id` opens a view only within 3 seconds of the interaction that carried
it, and once: views.open answers `expired_trigger_id` after that.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any

LIMITED_PAGE = 15
TRIGGER_SECONDS = 3.0
HISTORY_METHODS = ("conversations.history", "conversations.replies")


@dataclass
class HistoryTier:
    """`tier` "limited": 15 a page and one call per method a `window` (Slack's minute, shortened by tests)."""

    tier: str = "marketplace"
    window: float = 60.0
    _last: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def refusal(self, method: str) -> int | None:
        """The Retry-After seconds of a call over the limit (nothing is processed), else None."""
        if self.tier != "limited" or method not in HISTORY_METHODS:
            return None
        with self._lock:
            now, last = time.monotonic(), self._last.get(method)
            if last is not None and now - last < self.window:
                return max(1, math.ceil(self.window - (now - last)))
            self._last[method] = now
        return None

    def paged(self, args: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments with `limit` cut to the tier's page."""
        if self.tier != "limited":
            return args
        return {**args, "limit": str(min(int(args.get("limit") or LIMITED_PAGE), LIMITED_PAGE))}


@dataclass
class Triggers:
    """trigger_ids Slack issued; one made up by a test and never issued is taken, as older tests expect."""

    _issued: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def issue(self, trigger_id: str, age: float = 0.0) -> str:
        """A trigger_id issued `age` seconds ago."""
        with self._lock:
            self._issued[trigger_id] = time.monotonic() - age
        return trigger_id

    def problem(self, trigger_id: str) -> dict[str, Any] | None:
        """Slack's answer to a trigger_id over 3 seconds old or used already, else None (and it is used)."""
        with self._lock:
            issued = self._issued.get(trigger_id)
            if issued is None:
                return None
            if issued < 0 or time.monotonic() - issued > TRIGGER_SECONDS:
                return {"ok": False, "error": "expired_trigger_id"}
            self._issued[trigger_id] = -1.0
        return None
