"""Several repositories read at once (issue 38): a question in an unmapped channel searches every repository,
and SQLite runs a query without holding the GIL, so a few threads use the machine's cores.

Each repository is read by one lane (a thread of its own), picked by the repository's place in the list (every
repository, in the served order, is what a call over several reaches), so the lanes share the work evenly and a
repository is never read by two lanes at once. An issue store keeps one connection whichever threads read it
(tools/issue_store.py), so memory grows with the repositories, not with repositories times lanes. At most
`LANES` lanes, never more than the cores; with one core the calls run in the caller's thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from atlas import stop_signals

K = TypeVar("K")
T = TypeVar("T")
LANES = 4
_lanes: list[ThreadPoolExecutor] = []
_lock = threading.Lock()


def lane_count() -> int:
    """How many lanes this process reads repositories in: the cores, at most LANES."""
    return max(1, min(LANES, os.cpu_count() or 1))


def each(items: Sequence[K], call: Callable[[K], T]) -> list[T]:
    """`call(item)` for every item (the served repositories, in order), item i in lane i modulo the lanes, results
    in order; an exception in one is raised here, as if the calls had run one after the other."""
    lanes = _started()
    if len(items) < 2 or not lanes:
        return [call(item) for item in items]
    futures: list[Future[T]] = [lanes[i % len(lanes)].submit(call, item) for i, item in enumerate(items)]
    return [future.result() for future in futures]


def _started() -> list[ThreadPoolExecutor]:
    with _lock:
        if not _lanes and lane_count() > 1:
            _lanes.extend(
                ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"atlas-repos-{i}", initializer=stop_signals.hold)
                for i in range(lane_count())
            )
        return _lanes
