"""Recalibration after a sync and after every N decisions (issue 36 item 2: "calibration runs after each sync and
after every N decisions"): a sync, periodic, webhook-driven or `atlas sync github`, and the DECISIONS_EVERY-th
decision recorded since the last calibration each ask for one `recalibrate` job of its repository
(workers/triage/recalibration.py: at most one queued at a time); a worker runs it, so the thresholds (and the
replays kept on disk per tracker revision, workers/triage/calibration_store.py) are ready before the next new issue
instead of being computed in its triage job.
"""

from __future__ import annotations

from typing import Any


def recalibrate(repo: str | None = None) -> str:
    """Calibrate `repo`'s triage on its history and recorded decisions now, in this worker's engine and on disk."""
    from workers.new_issues import wording
    from workers.process import repo_parts, runtime
    from workers.triage import outcomes, recalibration, rolling

    rt: Any = runtime.current()
    name = repo or (rt.settings.github.repo if rt.settings.github is not None else "demo")
    recalibration.started(rt.conn, name)  # a change or a decision from now on counts toward another
    if repo is not None and rt.settings.github is not None and repo_parts.served(rt, repo) is None:
        return f"stopped: {repo} is not served any more"
    rt = repo_parts.for_repo(rt, repo)
    if not rt.settings.triage.enabled:
        return f"skipped: triage is off for {name}"
    engine = rt.triage_engine()
    decided = outcomes.load(rt.conn, name)
    thresholds = rolling.live(engine, decided, fresh=True)  # every decision recorded so far, whatever the step
    closed = sum(1 for r in engine.history.records if r.state == "closed")
    shown = wording.thresholds_line(thresholds.shown()) or "fixed thresholds"
    return f"recalibrated {name} on {min(closed, rolling.WINDOW)} closed issues and {len(decided)} decisions: {shown}"
