"""What the benchmarks share: percentiles and bounded waits (a benchmark never hangs)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank `q` quantile (0..1) of `values`."""
    ordered = sorted(values)
    return ordered[min(int(round(q * (len(ordered) - 1))), len(ordered) - 1)]


def wait(check: Callable[[], T], what: str, timeout: float = 180.0, interval: float = 0.005) -> T:
    """Poll `check` until it returns something truthy; give up with TimeoutError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"bench: gave up waiting for {what}")


def latency_row(label: str, values_ms: list[float]) -> list[object]:
    """A table row of latencies: label, p50, p95, max (ms)."""
    return [label, percentile(values_ms, 0.5), percentile(values_ms, 0.95), max(values_ms)]
