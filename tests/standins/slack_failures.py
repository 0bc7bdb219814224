"""The failures a test scripts on the Slack stand-in, per method: a refusal (HTTP 200 `ok: false`), a 429 with
`Retry-After`, a 5xx, an outage for some seconds, and a request held in flight (answered or lost later)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Hold:
    """A request held in flight: `reached` is set when it arrives; it is then answered only after
    `release`, unprocessed, as if it never got through (its sender may be gone by then). With
    `processed`, Slack did it (the message is there) and only the answer is held, then lost."""

    method: str
    matches: Callable[[dict[str, Any]], bool]
    processed: bool = False
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


@dataclass
class Planned:
    status: int = 200
    error: str | None = None
    retry_after: int | None = None


@dataclass(frozen=True)
class Outage:
    methods: frozenset[str]
    until: float
    status: int
    when: Callable[[dict[str, Any]], bool] | None


class ScriptedFailures:
    """What `SlackAPI` answers instead of the real thing when a test asked for it (its state lives on the API)."""

    _lock: threading.Lock
    _holds: list[Hold]
    _plans: dict[str, deque[Planned]]
    _outages: list[Outage]

    def refuse(self, method: str, error: str, times: int = 1) -> None:
        """The next `times` calls answer HTTP 200 `{"ok": false, "error": error}`."""
        self._plan(method, Planned(error=error), times)

    def rate_limit(self, method: str, times: int = 1, retry_after: int = 0) -> None:
        """The next `times` calls answer HTTP 429 with `Retry-After` (nothing is processed)."""
        self._plan(method, Planned(status=429, error="ratelimited", retry_after=retry_after), times)

    def server_error(self, method: str, times: int = 1, status: int = 500, *, after: int = 0) -> None:
        """The next `times` calls answer a 5xx (nothing is processed); with `after`, only once that many
        more calls have been answered as usual."""
        self._plan(method, Planned(), after)
        self._plan(method, Planned(status=status, error="internal_error"), times)

    def outage(
        self, *methods: str, seconds: float, status: int = 503, when: Callable[[dict[str, Any]], bool] | None = None
    ) -> None:
        """For `seconds` from now, calls to `methods` (every method when none is named) whose arguments
        satisfy `when` answer HTTP `status` and are not processed: Slack having an outage."""
        with self._lock:
            self._outages.append(Outage(frozenset(methods), time.monotonic() + seconds, status, when))

    def _in_outage(self, method: str, args: dict[str, Any]) -> int | None:
        now = time.monotonic()
        for outage in self._outages:
            if (
                now < outage.until
                and (not outage.methods or method in outage.methods)
                and (outage.when is None or outage.when(args))
            ):
                return outage.status
        return None

    def hold(
        self, method: str, matches: Callable[[dict[str, Any]], bool] = lambda args: True, *, processed: bool = False
    ) -> Hold:
        """Hold the next call of `method` whose arguments match (e.g. to kill its caller meanwhile);
        `processed`: Slack does the call first and only its answer is held."""
        held = Hold(method, matches, processed)
        with self._lock:
            self._holds.append(held)
        return held

    def _plan(self, method: str, planned: Planned, times: int) -> None:
        with self._lock:
            self._plans[method].extend([planned] * times)
