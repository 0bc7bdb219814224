"""Persistent delivery to Slack: an answer or approval card is retried through an outage of minutes.

slack_sdk's own retry handlers cover a blip (a few quick tries). An outage of Slack lasts minutes, so
the surface wraps each whole delivery (which is idempotent: posted messages are remembered in the
run and never posted twice) in `persist`: tries with capped exponential backoff and full jitter
until a time budget (`ATLAS_SLACK_OUTAGE_SECONDS`) is spent. The job keeps running while it waits;
the worker's heartbeat thread and the run's lease keep it alive, so no RQ scheduler is involved.
Errors that another try cannot fix (a bad token, a deleted channel) end the wait at once.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack import wording
from workers.errors import DeliveryLost
from workers.runs.state import RunState
from workers.runs.surfaces import Undeliverable

log = logging.getLogger("atlas.delivery")

T = TypeVar("T")
FIRST_WAIT_SECONDS = 0.5
# `ok: false` errors Slack documents as temporary (the call may succeed later), besides HTTP 429/5xx.
TRANSIENT_ERRORS: frozenset[str] = frozenset(
    {"ratelimited", "rate_limited", "internal_error", "fatal_error", "service_unavailable", "request_timeout", "team_added_to_org"}
)


@dataclass(frozen=True)
class Patience:
    """How long a delivery keeps trying, and the longest wait between two tries."""

    budget_seconds: float
    cap_seconds: float
    first_wait: float = FIRST_WAIT_SECONDS

    def wait(self, attempt: int) -> float:
        """Full jitter over an exponential ceiling: tries from many workers spread out after an outage."""
        return random.uniform(0, min(self.cap_seconds, self.first_wait * 2 ** attempt))


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
                raise DeliveryLost(f"{what}: Slack kept failing for {patience.budget_seconds:.0f}s", transient=True) from exc
            pause = min(patience.wait(attempt), left)
            attempt += 1
            log.warning("%s failed (%s, try %d); trying again in %.1fs", what, type(exc).__name__, attempt, pause)
            sleep(pause)


def deliver(run: RunState, what: Undeliverable, post: Callable[[], None], patience: Patience, *,
            save: Callable[[RunState], None], note: Callable[[str], Any]) -> bool:
    """Post `what` through an outage. When the budget is spent (or Slack refuses for good), mark the
    run `undelivered` (it keeps the answer: `atlas runs show`) and `note` the thread plainly, which
    gets a few tries of its own since Slack may still be down. True when it was delivered."""
    try:
        persist(post, patience, what=f"run {run.id}: {what}")
    except DeliveryLost as lost:
        log.error("run %s: %s not delivered to Slack: %s", run.id, what, lost)
        run.surface.undelivered = what
        save(run)
        minutes = max(1, round(patience.budget_seconds / 60))
        text = (wording.ANSWER_UNDELIVERED if what == "answer" else wording.CARDS_UNDELIVERED).format(
            minutes=minutes, minute_word="minute" if minutes == 1 else "minutes", run_id=run.id, count=len(run.pending)
        )
        try:
            persist(lambda: note(text), Patience(patience.cap_seconds, patience.cap_seconds), what=f"run {run.id}: note")
        except DeliveryLost as also:
            log.error("run %s: the note about the undelivered %s was not delivered either: %s", run.id, what, also)
        return False
    if run.surface.undelivered:
        run.surface.undelivered = None
        save(run)
    return True
