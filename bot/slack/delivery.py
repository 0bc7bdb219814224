"""Persistent delivery to Slack: an answer or approval card is retried through an outage of minutes.

slack_sdk's own retry handlers cover a blip (a few quick tries). An outage of Slack lasts minutes, so
the reporter tries each whole delivery (which is idempotent: posted messages are remembered in the
run and never posted twice) again with capped exponential backoff and full jitter (`Tries`). A
worker works many runs at once, so a delivery keeps its slot only for a few seconds (`IN_SLOT_SECONDS`):
past that it schedules a re-delivery job with the next backoff (workers/runs/redelivery.py) and the
job ends, freeing the slot; each re-delivery tries again the same way until `ATLAS_SLACK_OUTAGE_SECONDS`
have passed since the first failure. With no RQ scheduler running, the job waits out the outage in its
slot instead, as it always did. Errors that another try cannot fix (a bad token, a deleted channel)
end the wait at once.

Nothing here posts and nothing here is handed a way to: the reporter (bot/slack/surface.py) makes each try and
says how it went (`succeeded`, `failed`); `Delivery` decides what comes next (another try now, a re-delivery job
later, or giving up, with the `Undelivered` notice the reporter then renders and posts). So the walk of an answer
goes down only (tests/house/test_posting_walk.py).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Literal

from slack_sdk.errors import SlackApiError, SlackClientError

from workers.errors import DeliveryLost
from workers.messages.notices import Undelivered
from workers.runs import redelivery
from workers.runs.redelivery import FIRST_WAIT_SECONDS, Redelivery
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import Undeliverable

log = logging.getLogger("atlas.delivery")

IN_SLOT_SECONDS = 3.0  # how long one job keeps trying before it hands the outage to a scheduled re-delivery
Delivered = Literal["delivered", "scheduled", "lost"]
# `ok: false` errors Slack documents as temporary (the call may succeed later), besides HTTP 429/5xx.
TRANSIENT_ERRORS: frozenset[str] = frozenset(
    {
        "ratelimited",
        "rate_limited",
        "internal_error",
        "fatal_error",
        "service_unavailable",
        "request_timeout",
        "team_added_to_org",
    }
)


@dataclass(frozen=True)
class Patience:
    """How long a delivery keeps trying, and the longest wait between two tries."""

    budget_seconds: float
    cap_seconds: float
    first_wait: float = FIRST_WAIT_SECONDS

    def wait(self, attempt: int) -> float:
        """Full jitter over an exponential ceiling: tries from many workers spread out after an outage."""
        return redelivery.jittered(attempt, self.cap_seconds, self.first_wait)


def transient(exc: BaseException) -> bool:
    """True when trying the same call later may succeed: 429, 5xx, a temporary `ok: false`, no connection."""
    if isinstance(exc, SlackApiError):
        response = exc.response
        status = getattr(response, "status_code", 200)
        error = response.get("error") if hasattr(response, "get") else None
        return status == 429 or status >= 500 or error in TRANSIENT_ERRORS
    return isinstance(exc, (SlackClientError, OSError, TimeoutError))


class Tries:
    """Tries of one call until it succeeds, with capped exponential backoff and full jitter. The caller makes each
    try while `another()` and reports it (`succeeded`, `failed`); `lost` says why it gave up, once it did."""

    def __init__(self, patience: Patience, *, what: str) -> None:
        self.patience, self.what = patience, what
        self.deadline = time.monotonic() + patience.budget_seconds
        self.attempt = 0
        self.done = False
        self.lost: DeliveryLost | None = None

    def another(self) -> bool:
        return not self.done

    def succeeded(self) -> None:
        self.done = True

    def failed(self, exc: Exception) -> None:
        """Lost on a lasting error or once the budget is spent; else wait out the next backoff here."""
        if not transient(exc):
            self._lose(DeliveryLost(f"{self.what}: {type(exc).__name__}", transient=False), exc)
            return
        left = self.deadline - time.monotonic()
        if left <= 0:
            budget = self.patience.budget_seconds
            self._lose(DeliveryLost(f"{self.what}: Slack kept failing for {budget:.0f}s", transient=True), exc)
            return
        pause = min(self.patience.wait(self.attempt), left)
        self.attempt += 1
        log.warning("%s failed (%s, try %d); trying again in %.1fs", self.what, type(exc).__name__, self.attempt, pause)
        time.sleep(pause)

    def _lose(self, lost: DeliveryLost, cause: Exception) -> None:
        lost.__cause__ = cause
        self.lost, self.done = lost, True


class Delivery:
    """One answer's, cards' or triage card's way to Slack through an outage: "delivered"; "scheduled" when a
    re-delivery job will try again (`later`, when a scheduler runs); "lost" when the budget is spent (or Slack
    refuses for good): the run is marked `undelivered` (it keeps the answer: `atlas runs show`) and `notice` is
    what the thread is told plainly. The first try goes at once; a post that goes through never asks whether a
    scheduler runs."""

    def __init__(
        self, run: RunState, what: Undeliverable, patience: Patience, store: RunStore, later: Redelivery | None
    ) -> None:
        self.run, self.what, self.patience, self.store, self.later = run, what, patience, store, later
        self.done: Delivered | None = None
        self.notice: Undelivered | None = None  # set once lost: the reporter renders and posts it
        self.tries: Tries | None = None  # None: the first try, before any waiting
        if run.surface.outage_since is not None:  # an outage already under way (a re-delivery job)
            self._wait()

    def another_try(self) -> bool:
        return self.done is None

    @property
    def outcome(self) -> Delivered:
        assert self.done is not None, "the delivery is still trying"
        return self.done

    def succeeded(self) -> None:
        """Posted: an outage the run went through is over (saved only when there was one)."""
        surface = self.run.surface
        if surface.undelivered or surface.outage_since is not None:
            surface.undelivered, surface.outage_since, surface.outage_tries = None, None, 0
            self.store.save(self.run)
        self.done = "delivered"

    def failed(self, exc: Exception) -> None:
        run, what = self.run, self.what
        if self.tries is None:
            if not transient(exc):
                lost = DeliveryLost(f"run {run.id}: {what}: {type(exc).__name__}", transient=False)
                lost.__cause__ = exc
                self._lost(lost)
                return
            log.warning("run %s: %s failed (%s, try 1)", run.id, what, type(exc).__name__)
            self._wait()
            return
        self.tries.failed(exc)
        gave_up = self.tries.lost
        if gave_up is None:
            return
        if self.later is not None and gave_up.transient and self._reschedule(self.later):
            self.done = "scheduled"
            return
        self._lost(gave_up)

    def _wait(self) -> None:
        """Try again in this job: for a few seconds when a scheduler can take over, else through the whole outage."""
        surface, patience = self.run.surface, self.patience
        spent = time.time() - surface.outage_since if surface.outage_since is not None else 0.0
        left = max(0.0, patience.budget_seconds - spent)  # of the outage budget, counted from the first failure
        if self.later is None or not self.later.available():
            self.later = None  # nothing would run a re-delivery: wait here
            trying = Patience(left, patience.cap_seconds, patience.first_wait)
        else:
            trying = Patience(min(IN_SLOT_SECONDS, left), patience.cap_seconds, patience.first_wait)
        self.tries = Tries(trying, what=f"run {self.run.id}: {self.what}")

    def _reschedule(self, later: Redelivery) -> bool:
        """Schedule the next try if the outage budget has time left; saved first, so the re-delivery job (or
        this job retried after a kill) reads which attempt it is and schedules the one after."""
        run, patience = self.run, self.patience
        surface = run.surface
        now = time.time()
        since = surface.outage_since if surface.outage_since is not None else now
        left = patience.budget_seconds - (now - since)
        if left <= 0:
            return False
        surface.outage_since, surface.outage_tries = since, surface.outage_tries + 1
        self.store.save(run)
        delay = redelivery.delay(
            surface.outage_tries, patience.cap_seconds, left, patience.first_wait
        )  # refused answers spread out
        later.schedule(run.id, surface.outage_tries, delay)
        log.warning(
            "run %s: Slack is not taking the %s (try %d); a re-delivery is scheduled in %.1fs",
            run.id,
            "answer" if run.final and run.triage is None else "cards",
            surface.outage_tries,
            delay,
        )
        return True

    def _lost(self, lost: DeliveryLost) -> None:
        run, what = self.run, self.what
        log.error("run %s: %s not delivered to Slack: %s", run.id, what, lost)
        run.surface.undelivered = what
        run.surface.outage_since, run.surface.outage_tries = None, 0
        self.store.save(run)
        minutes = max(1, round(self.patience.budget_seconds / 60))
        issue = run.triage.issue if run.triage is not None else None
        self.notice = Undelivered(what, minutes, run.id, count=len(run.pending), issue=issue)
        self.done = "lost"
