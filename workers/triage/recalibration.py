"""Asking for a repository's recalibration (issue 36 item 2: "calibration runs after each sync and after every N
decisions"): one `recalibrate` job (workers/jobs/calibration.py runs it) after a sync or a webhook that changed what
calibration reads, and after every DECISIONS_EVERY maintainers' decisions recorded since the last calibration (the
count is kept by workers/triage/outcomes.py's record script: of a burst of decisions, exactly one recorder sees
the count reach it).

Asked at most once at a time per repository: a marker is set when the job is queued and cleared when it starts, so
a burst of webhook deliveries or decisions queues one job, and one during a running job queues the next (which then
sees every change). A marker left by a lost job expires. Nothing here fails its caller: a Redis error is a sentence.
"""

from __future__ import annotations

import logging

import redis
from rq import Queue

from workers.runs.job_names import RECALIBRATE

log = logging.getLogger("atlas.triage")
MARKER_SECONDS = 900  # a queued job that was lost blocks no recalibration longer than this
DECISIONS_EVERY = 20  # recorded decisions (label and duplicate outcomes) since the last calibration that ask for one
QUEUED = "; recalibration queued"


def marker(repo: str) -> str:
    return f"atlas:triage:recalibrate-queued:{repo.lower()}"


def decisions_key(repo: str) -> str:
    """The count of calibrating decisions recorded since `repo`'s last calibration (outcomes.record adds to it)."""
    return f"atlas:triage:decisions-since-calibration:{repo.lower()}"


def ask(conn: redis.Redis, queue_name: str, repo: str) -> str:
    """Queue `repo`'s recalibration unless one is already waiting; what was done, as a clause for a job's result."""
    try:
        if not conn.set(marker(repo), "1", nx=True, ex=MARKER_SECONDS):
            return "; recalibration already queued"
        Queue(queue_name, connection=conn).enqueue(RECALIBRATE, repo, job_id=job_id(repo))
    except redis.RedisError as exc:  # the caller's work stands; the next triage job calibrates its engine anyway
        log.warning("recalibration of %s not queued: %s", repo, exc)
        return f"; recalibration not queued ({type(exc).__name__}): at the next triage"
    return QUEUED


def started(conn: redis.Redis, repo: str) -> None:
    """A recalibration of `repo` starts: a change from now on asks for another, and the decisions count from zero."""
    conn.delete(marker(repo), decisions_key(repo))


def job_id(repo: str) -> str:
    """The recalibration's RQ job id (letters, digits, - and _ only)."""
    return "atlas-recalibrate-" + "".join(c if c.isalnum() else "-" for c in repo.lower())
