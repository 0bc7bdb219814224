"""Before filing from chat (issue 36 item 7): the open issues that may already be the report a thread is about to
file, by the triage engine's duplicate ranking (workers/triage/engine.py), up to three, each with its score and
why; shown on the "File as GitHub issue" card so the approver can see it is known before filing it again.

A courtesy: when the triage cannot be opened (no synced history yet), the card shows none and says nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from workers.parts import WorkerParts
from workers.triage.engine import NewIssue

log = logging.getLogger("atlas.followup")
SHOWN = 3


def open_matches(rt: WorkerParts, title: str, body: str) -> list[dict[str, Any]]:
    """[{"id", "title", "url", "score", "evidence"}] for up to three open issues like the draft, best first."""
    try:
        engine = rt.triage_engine()
        found = engine.triage(NewIssue(0, title, body))
    except Exception:
        log.warning("no similar issues for a draft: the triage could not be opened", exc_info=True)
        return []
    ranked = [*found.duplicates, *(getattr(found, "related", None) or [])]  # the claims first, then related ones
    out: list[dict[str, Any]] = []
    for candidate in ranked:
        number = int(getattr(candidate, "id", 0) or 0)
        record = engine.history.get(number)
        if record is None or record.state != "open" or any(o["id"] == number for o in out):
            continue
        out.append(
            {
                "id": number,
                "title": record.title,
                "url": rt.tracker.url(number),
                "score": round(float(getattr(candidate, "score", 0.0)), 2),
                "evidence": str(getattr(candidate, "evidence", "")),
            }
        )
    return out[:SHOWN]
