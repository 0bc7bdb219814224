"""The filing's one line in the thread ("Filed #N ..."), posted once and never lost to a chat outage.

Posted at most once across killed workers (`_Note`, workers/runs/post_once.py). A platform that fails to take
it (Slack or Discord down) does not drop it: the failure is counted on the filing record and the note is handed to
a scheduled re-delivery of the filing run (workers/runs/redelivery.py, `continue_run`, whose `filing.proceed`
tells a done run's thread what it has not heard yet), with capped, jittered backoff, until ATLAS_SLACK_OUTAGE_SECONDS
have passed since the first failure; with no RQ scheduler running the job fails instead, so that RQ retries it,
as close notices do (notices.py). Past the budget a log line says the thread was never told (`atlas runs show`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from workers.errors import LeaseLost, NoticeUndelivered
from workers.followup import subscriptions as subs
from workers.parts import WorkerParts
from workers.runs import redelivery
from workers.runs.filing_record import FilingRecord
from workers.runs.redelivery import Redelivery
from workers.runs.state import RunState
from workers.runs.store import RunStore

log = logging.getLogger("atlas.followup")


def tell(rt: WorkerParts, run: RunState, record: FilingRecord) -> None:
    """The outcome in the thread, once; a failure to post it is retried later (`_later`), never swallowed."""
    platform = rt.platform_for(run.origin.kind)
    place = subs.place_of(run)
    if record.told or platform is None or place is None:
        return
    try:
        if platform.thread_note(place, record.result, once=_Note(rt.store, run, record)) == "gone":
            log.warning("run %s: the thread of the filing is gone; nothing said there", run.id)
    except LeaseLost:
        raise  # another job has the run: it tells the thread
    except Exception as exc:
        _later(rt, run, record, exc)
        return
    record.told, record.note_failed_since = True, 0.0
    rt.store.save(run)


def _later(rt: WorkerParts, run: RunState, record: FilingRecord, exc: Exception) -> None:
    """Count the failure and try again later: a scheduled re-delivery within the outage budget, else RQ's retry."""
    now = time.time()
    since = record.note_failed_since or now
    left = rt.settings.slack_outage_seconds - (now - since)
    if left <= 0:
        log.error(
            "run %s: the thread was not told of the filing (%s); %s kept "
            "failing for %.0fs, giving up (atlas runs show %s)",
            run.id,
            type(exc).__name__,
            run.origin.kind,
            now - since,
            run.id,
        )
        return
    record.note_failed_since, record.note_tries = since, record.note_tries + 1
    rt.store.save(run)  # first, so the next try reads which attempt it is
    later = Redelivery(rt.conn, rt.settings.queue_name)
    if not later.available():
        raise NoticeUndelivered(
            f"run {run.id}: the filing's note was not posted ({type(exc).__name__}); the job is retried"
        ) from exc
    delay = redelivery.delay(
        record.note_tries, rt.settings.slack_retry_cap_seconds, left
    )  # notes refused at once spread out
    later.schedule(run.id, record.note_tries, delay, what="note")
    log.warning(
        "run %s: %s is not taking the filing's note (%s, try %d); a re-delivery is scheduled in %.1fs",
        run.id,
        run.origin.kind,
        type(exc).__name__,
        record.note_tries,
        delay,
    )


@dataclass
class _Note:
    """The outcome note's slot (workers/runs/post_once.py), on the filing record."""

    store: RunStore
    run: RunState
    filing: FilingRecord

    @property
    def key(self) -> str:
        return f"filed:{self.run.id}"

    def posted(self) -> tuple[str, str] | None:
        return (self.run.origin.channel or "", self.filing.note_ts) if self.filing.note_ts else None

    def posting(self) -> float:
        return self.filing.note_posting

    def intend(self, at: float) -> None:
        self.filing.note_posting = at
        self.store.save(self.run)

    def record(self, channel: str, message: str) -> None:
        self.filing.note_ts, self.filing.told = message, True
        self.store.save(self.run)
