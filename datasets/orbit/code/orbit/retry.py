"""Retry policy: whether a failed job runs again, and after how long."""

from __future__ import annotations

import random

from orbit.config import RetryConfig
from orbit.errors import BackoffClamped, PermanentError


def compute_delay(policy: RetryConfig, attempt: int, rng: random.Random) -> float:
    """Seconds to wait before attempt `attempt + 1`: the backoff strategy, clamped, then jittered.

    A delay above max_backoff_seconds is clamped and logged as ORB-1203 BackoffClamped.
    """
    base = policy.base_delay_seconds
    if policy.backoff == "fixed":
        delay = base
    elif policy.backoff == "linear":
        delay = base * attempt
    else:
        delay = base * 2 ** (attempt - 1)
    if delay > policy.max_backoff_seconds:
        BackoffClamped(f"delay {delay:.0f}s clamped to {policy.max_backoff_seconds:.0f}s")
        delay = policy.max_backoff_seconds
    if policy.jitter:
        delay *= rng.uniform(0.5, 1.0)
    return delay


def matching_permanent_error(exc: BaseException, permanent_errors: tuple[type[BaseException], ...]) -> str | None:
    """The entry of permanent_errors that `exc` is an instance of, by name; logged with ORB-1202.

    Subclasses match: listing requests.RequestException also makes Timeout and ConnectionError permanent.
    """
    if isinstance(exc, PermanentError):
        return "orbit.PermanentError"
    for kind in permanent_errors:
        if isinstance(exc, kind):
            return f"{kind.__module__}.{kind.__qualname__}"
    return None


def should_retry(exc: BaseException, attempt: int, policy: RetryConfig,
                 permanent_errors: tuple[type[BaseException], ...] = ()) -> bool:
    """False once the attempts are used up (ORB-1201) or for a permanent error (ORB-1202)."""
    if matching_permanent_error(exc, permanent_errors) is not None:
        return False
    return attempt < policy.max_attempts
