"""The application object: job registration and enqueueing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orbit.config import DEFAULT_MAX_PAYLOAD_KB


class App:
    """An Orbit app: a name, its jobs, and the broker it enqueues to."""

    def __init__(self, name: str, broker_url: str = "redis://localhost:6379/0") -> None:
        self.name = name
        self.broker_url = broker_url
        self.jobs: dict[str, Callable[..., Any]] = {}
        self.max_payload_kb = DEFAULT_MAX_PAYLOAD_KB

    def job(self, retries: int | None = None, timeout: float | None = None,
            permanent_errors: tuple[type[BaseException], ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register a function as a job; `retries` overrides [retries] max_attempts for it."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.jobs[f"{fn.__module__}.{fn.__qualname__}"] = fn
            fn.orbit_options = {"retries": retries, "timeout": timeout, "permanent_errors": permanent_errors}
            return fn

        return register
