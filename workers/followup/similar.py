"""Before filing from chat (issue 36 item 7): the open issues that may already be the report a thread is about to
file, up to three, each with its score and why; shown on the "File as GitHub issue" card so the approver can see it
is known before filing it again, and each offered as "Add my details to #N instead" (add_details.py).

They are what the triage card would show for the draft (workers/triage/engine.py `decide`: the claim, then related
issues down to RELATED_FLOOR, under the repository's calibrated thresholds, rolling.live) among the open candidates
only: every candidate the engine looks at is ranked, not only its best three, so closed issues ranked higher never
crowd out open ones.

A courtesy: when the triage cannot be opened (no synced history yet), the card shows none and says nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from workers.parts import WorkerParts
from workers.triage import outcomes, rolling
from workers.triage.engine import MAX_DUPLICATES, NewIssue, Triage
from workers.triage.thresholds import Thresholds

log = logging.getLogger("atlas.followup")
SHOWN = MAX_DUPLICATES


def open_matches(rt: WorkerParts, title: str, body: str) -> list[dict[str, Any]]:
    """[{"id", "title", "url", "score", "evidence"}] for up to three open issues like the draft, best first."""
    try:
        engine = rt.triage_engine()
        scored = engine.score(NewIssue(0, title, body), limit=max(len(engine.history), MAX_DUPLICATES))
    except Exception:
        log.warning("no similar issues for a draft: the triage could not be opened", exc_info=True)
        return []
    open_ones = [c for c in scored.candidates if (r := engine.history.get(c.id)) is not None and r.state == "open"]
    found = engine.decide(dataclasses.replace(scored, candidates=open_ones), _thresholds(rt, engine))
    out: list[dict[str, Any]] = []
    for candidate in [*found.duplicates, *found.related]:  # the claim first, then related ones
        record = engine.history.by_id[candidate.id]
        out.append(
            {
                "id": candidate.id,
                "title": record.title,
                "url": rt.tracker.url(candidate.id),
                "score": round(float(candidate.score), 2),
                "evidence": candidate.evidence,
            }
        )
    return out[:SHOWN]


def _thresholds(rt: WorkerParts, engine: Triage) -> Thresholds | None:
    """The repository's calibrated thresholds, as its triage card uses them (None: the engine's fixed ones)."""
    repo = rt.settings.github.repo if rt.settings.github is not None else "demo"
    try:
        return rolling.live(engine, outcomes.load(rt.conn, repo))
    except Exception:  # a courtesy: the fixed thresholds show the same open issues (only the claim's line moves)
        log.warning("a draft's similar issues under the fixed thresholds: no calibration", exc_info=True)
        return None
