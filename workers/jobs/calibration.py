"""Recalibration after a sync (issue 36 item 2: "calibration runs after each sync"): a sync, periodic, webhook-driven
or `atlas sync github`, asks for one `recalibrate` job of its repository; a worker runs it, so the thresholds (and
the replays kept on disk per tracker revision, workers/triage/calibration_store.py) are ready before the next new
issue instead of being computed in its triage job.

Asked at most once at a time per repository: a marker is set when the job is queued and cleared when it starts, so
a burst of webhook deliveries queues one job, and a delivery during a running one queues the next (which then sees
every change). A marker left by a lost job expires. Nothing here fails a sync: a Redis error is a sentence.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from rq import Queue

from workers.runs.job_names import RECALIBRATE

log = logging.getLogger("atlas.triage")
MARKER_SECONDS = 900  # a queued job that was lost blocks no recalibration longer than this
QUEUED = "; recalibration queued"


def marker(repo: str) -> str:
    return f"atlas:triage:recalibrate-queued:{repo.lower()}"


def ask(conn: redis.Redis, queue_name: str, repo: str) -> str:
    """Queue `repo`'s recalibration unless one is already waiting; what was done, as a clause for a job's result."""
    try:
        if not conn.set(marker(repo), "1", nx=True, ex=MARKER_SECONDS):
            return "; recalibration already queued"
        Queue(queue_name, connection=conn).enqueue(RECALIBRATE, repo, job_id=job_id(repo))
    except redis.RedisError as exc:  # the sync stands; the next triage job calibrates its grown engine anyway
        log.warning("recalibration of %s not queued: %s", repo, exc)
        return f"; recalibration not queued ({type(exc).__name__}): at the next triage"
    return QUEUED


def job_id(repo: str) -> str:
    """The recalibration's RQ job id (letters, digits, - and _ only)."""
    return "atlas-recalibrate-" + "".join(c if c.isalnum() else "-" for c in repo.lower())


def recalibrate(repo: str | None = None) -> str:
    """Calibrate `repo`'s triage on its history and recorded decisions now, in this worker's engine and on disk."""
    from workers.new_issues import wording
    from workers.process import repo_parts, runtime
    from workers.triage import outcomes, rolling

    rt: Any = runtime.current()
    name = repo or (rt.settings.github.repo if rt.settings.github is not None else "demo")
    rt.conn.delete(marker(name))  # a change from now on asks for another recalibration
    if repo is not None and rt.settings.github is not None and repo_parts.served(rt, repo) is None:
        return f"stopped: {repo} is not served any more"
    rt = repo_parts.for_repo(rt, repo)
    if not rt.settings.triage.enabled:
        return f"skipped: triage is off for {name}"
    engine = rt.triage_engine()
    decided = outcomes.load(rt.conn, name)
    thresholds = rolling.live(engine, decided)
    closed = sum(1 for r in engine.history.records if r.state == "closed")
    shown = wording.thresholds_line(thresholds.shown()) or "fixed thresholds"
    return f"recalibrated {name} on {min(closed, rolling.WINDOW)} closed issues and {len(decided)} decisions: {shown}"
