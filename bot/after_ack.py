"""Work done after an ack starts once no request is being answered (or soon anyway): acks go first.

Why: a click's follow-up (the resume enqueue, the card edit, a note) is about a millisecond of Python
each. Started at once, the follow-ups of a burst of clicks share the interpreter with the acks still
being answered and stretch them: with the follow-ups held back, the approvals bench's click ack p95
fell below the mention's (python -m bench approvals). Waiting for a quiet moment costs a follow-up
the rest of the burst, milliseconds. `patience` counts from when the work was submitted, so under
steady load nothing waits longer than that and the pool keeps its throughput.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from typing import Any

PATIENCE_SECONDS = 0.25  # the longest a follow-up waits for the requests in flight to be answered


class InFlight:
    """How many requests this process is answering right now."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    @contextmanager
    def request(self) -> Iterator[None]:
        """Count a request while it is being answered."""
        with self._changed:
            self._count += 1
        try:
            yield
        finally:
            with self._changed:
                self._count -= 1
                if self._count == 0:
                    self._changed.notify_all()

    def wait_quiet(self, deadline: float) -> None:
        """Return once no request is in flight, or at `deadline` (time.monotonic) at the latest."""
        with self._changed:
            self._changed.wait_for(lambda: self._count == 0, timeout=max(0.0, deadline - time.monotonic()))


class AfterAck(Executor):
    """An executor whose tasks start when no request is in flight, or `patience` seconds after submission."""

    def __init__(self, pool: Executor, in_flight: InFlight, patience: float = PATIENCE_SECONDS) -> None:
        self.pool = pool
        self.in_flight = in_flight
        self.patience = patience

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        deadline = time.monotonic() + self.patience
        return self.pool.submit(self._when_quiet, deadline, fn, args, kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def _when_quiet(
        self, deadline: float, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        self.in_flight.wait_quiet(deadline)
        return fn(*args, **kwargs)
