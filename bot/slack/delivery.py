"""Persistent delivery to Slack: an answer or approval card is retried through an outage of minutes.

slack_sdk's own retry handlers cover a blip (a few quick tries). An outage of Slack lasts minutes, so
the surface wraps each whole delivery (which is idempotent: posted messages are remembered in the
run and never posted twice) in `persist`: tries with capped exponential backoff and full jitter. A
worker works many runs at once, so a delivery keeps its slot only for a few seconds (`IN_SLOT_SECONDS`):
past that it schedules a re-delivery job with the next backoff (workers/runs/redelivery.py) and the
job ends, freeing the slot; each re-delivery tries again the same way until `ATLAS_SLACK_OUTAGE_SECONDS`
have passed since the first failure. With no RQ scheduler running, the job waits out the outage in its
slot instead, as it always did. Errors that another try cannot fix (a bad token, a deleted channel)
end the wait at once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.views.notices import notice_text
from workers.errors import DeliveryLost
from workers.messages.notices import Undelivered
from workers.runs import redelivery
from workers.runs.redelivery import FIRST_WAIT_SECONDS, Redelivery
from workers.runs.state import RunState
from workers.runs.surfaces import Undeliverable

log = logging.getLogger("atlas.delivery")

T = TypeVar("T")
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


def persist(
    action: Callable[[], T],
    patience: Patience,
    *,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Run `action` until it succeeds; raise DeliveryLost once the budget is spent or on a lasting error."""
    deadline = clock() + patience.budget_seconds
    attempt = 0
    while True:
        try:
            return action()
        except Exception as exc:
            if not transient(exc):
                raise DeliveryLost(f"{what}: {type(exc).__name__}", transient=False) from exc
            left = deadline - clock()
            if left <= 0:
                raise DeliveryLost(
                    f"{what}: Slack kept failing for {patience.budget_seconds:.0f}s", transient=True
                ) from exc
            pause = min(patience.wait(attempt), left)
            attempt += 1
            log.warning("%s failed (%s, try %d); trying again in %.1fs", what, type(exc).__name__, attempt, pause)
            sleep(pause)


def deliver(
    run: RunState,
    what: Undeliverable,
    post: Callable[[], None],
    patience: Patience,
    *,
    save: Callable[[RunState], None],
    note: Callable[[str], Any],
    later: Redelivery | None = None,
    clock: Callable[[], float] = time.time,
) -> Delivered:
    """Post `what` through an outage: "delivered"; "scheduled" when a re-delivery job will try again
    (`later`, when a scheduler runs); "lost" when the budget is spent (or Slack refuses for good): the
    run is marked `undelivered` (it keeps the answer: `atlas runs show`) and `note` tells the thread
    plainly, with a few tries of its own since Slack may still be down."""
    surface = run.surface
    if surface.outage_since is None:  # one try first: a post that goes through never asks whether a scheduler runs
        try:
            post()
        except Exception as exc:
            if not transient(exc):
                lost = DeliveryLost(f"run {run.id}: {what}: {type(exc).__name__}", transient=False)
                lost.__cause__ = exc
                _lost(run, what, lost, patience, save=save, note=note)
                return "lost"
            log.warning("run %s: %s failed (%s, try 1)", run.id, what, type(exc).__name__)
        else:
            return _delivered(run, save)
    spent = clock() - surface.outage_since if surface.outage_since is not None else 0.0
    left = max(0.0, patience.budget_seconds - spent)  # of the outage budget, counted from the first failure
    if later is None or not later.available():
        trying = Patience(left, patience.cap_seconds, patience.first_wait)  # nothing would run a re-delivery: wait here
        later = None
    else:
        trying = Patience(min(IN_SLOT_SECONDS, left), patience.cap_seconds, patience.first_wait)
    try:
        persist(post, trying, what=f"run {run.id}: {what}")
    except DeliveryLost as lost:
        if later is not None and lost.transient and _reschedule(run, patience, later, save, clock):
            return "scheduled"
        _lost(run, what, lost, patience, save=save, note=note)
        return "lost"
    return _delivered(run, save)


def _delivered(run: RunState, save: Callable[[RunState], None]) -> Delivered:
    """Posted: an outage the run went through is over (saved only when there was one)."""
    surface = run.surface
    if surface.undelivered or surface.outage_since is not None:
        surface.undelivered, surface.outage_since, surface.outage_tries = None, None, 0
        save(run)
    return "delivered"


def _reschedule(
    run: RunState,
    patience: Patience,
    later: Redelivery | None,
    save: Callable[[RunState], None],
    clock: Callable[[], float],
) -> bool:
    """Schedule the next try if the outage budget has time left; saved first, so the re-delivery job (or
    this job retried after a kill) reads which attempt it is and schedules the one after."""
    surface = run.surface
    now = clock()
    since = surface.outage_since if surface.outage_since is not None else now
    left = patience.budget_seconds - (now - since)
    if later is None or left <= 0:
        return False
    surface.outage_since, surface.outage_tries = since, surface.outage_tries + 1
    save(run)
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


def _lost(
    run: RunState,
    what: Undeliverable,
    lost: DeliveryLost,
    patience: Patience,
    *,
    save: Callable[[RunState], None],
    note: Callable[[str], Any],
) -> None:
    log.error("run %s: %s not delivered to Slack: %s", run.id, what, lost)
    run.surface.undelivered = what
    run.surface.outage_since, run.surface.outage_tries = None, 0
    save(run)
    minutes = max(1, round(patience.budget_seconds / 60))
    issue = run.triage.issue if run.triage is not None else None
    text = notice_text(Undelivered(what, minutes, run.id, count=len(run.pending), issue=issue))
    try:
        persist(lambda: note(text), Patience(patience.cap_seconds, patience.cap_seconds), what=f"run {run.id}: note")
    except DeliveryLost as also:
        log.error("run %s: the note about the undelivered %s was not delivered either: %s", run.id, what, also)
