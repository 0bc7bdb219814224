"""Where progress goes: the run's event stream (`atlas ask` tails it), or the thread of the chat platform it came
from."""

from __future__ import annotations

import logging
from collections.abc import Callable

from workers.agent.events import RunEvent
from workers.agent.ports import Reporter
from workers.errors import DeliveryFailed, StoppedByUser
from workers.runs.state import EventKind, RunState
from workers.runs.store import RunStore

log = logging.getLogger("atlas.reporting")


class StreamReporter(Reporter):
    """Publishes events to the run's Redis stream (the CLI tails it; runs from a chat platform report there instead)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._expiring: set[str] = set()  # runs whose stream got its TTL from this job (one instance per job)

    def event(self, run: RunState, event: RunEvent) -> None:
        record = {"kind": event.kind, "status": run.status, **event.record()}
        self.store.publish(run.id, record, expire=run.id not in self._expiring)
        self._expiring.add(run.id)


# Events whose delivery is the point of the run. A Slack outage is waited out inside the surface
# (bot/slack/delivery.py); anything else that breaks their delivery fails the job, RQ's retry re-sends
# them, and surfaces skip what they already posted.
MUST_DELIVER: frozenset[EventKind] = frozenset({"answer", "paused"})


class FanOut(Reporter):
    """Sends each event to several reporters; one failing never stops the others. A failed
    progress update is only logged; a failed answer or approval card raises DeliveryFailed. A person's
    stop (StoppedByUser) reaches the job once every reporter has had the event."""

    def __init__(self, *reporters: Reporter) -> None:
        self.reporters = reporters

    def event(self, run: RunState, event: RunEvent) -> None:
        failed: list[str] = []
        stopped: StoppedByUser | None = None
        for reporter in self.reporters:
            try:
                reporter.event(run, event)
            except StoppedByUser as exc:
                stopped = exc
            except Exception:
                log.exception("reporter %s failed on %s for run %s", type(reporter).__name__, event.kind, run.id)
                failed.append(type(reporter).__name__)
        if failed and event.kind in MUST_DELIVER:
            raise DeliveryFailed(f"{event.kind} of run {run.id} not delivered by {', '.join(failed)}")
        if stopped is not None:
            raise stopped


class Fenced(Reporter):
    """Calls `fence` before every event: a job whose lease another job took (workers/runs/lease.py) raises
    LeaseLost there instead of posting into the thread that job now answers."""

    def __init__(self, reporter: Reporter, fence: Callable[[], None]) -> None:
        self.reporter = reporter
        self.fence = fence

    def event(self, run: RunState, event: RunEvent) -> None:
        self.fence()
        self.reporter.event(run, event)
