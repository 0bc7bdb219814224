"""No dead ends (issue 36 item 5): before a card proposes "close as duplicate of #N", #N's own duplicate chain is
followed to the issue that is still open, or was closed as completed (then the card and the comment say where it
was fixed). A chain that loops, or that reaches a duplicate whose original nobody recorded, or an issue that
cannot be read, proposes no close at all (the card keeps the issue as related). An original closed as not planned
is named as such, never silently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tools.errors import TrackerError, TrackerUnavailable
from tools.tracker import IssueRef
from workers.new_issues import fixed_by
from workers.parts import WorkerParts
from workers.runs.triage_record import TriageAction, TriageRecord
from workers.triage.engine import Triage

log = logging.getLogger("atlas.new_issues")

MAX_HOPS = 10  # longer chains exist only by mistake; refusing them is safer than following them

State = Literal["open", "completed", "not_planned"]


@dataclass(frozen=True)
class Hop:
    """What the chain needs of one issue: its state, why it was closed, and its own original when a duplicate."""

    state: str  # open, closed
    reason: str | None  # completed, not_planned, duplicate, reopened, or None
    duplicate_of: int | None


@dataclass(frozen=True)
class Original:
    """Where a duplicate claim points after following the chain: `number` and how it stands; `path` from the
    suggested issue to it (one element when the suggestion itself is the end)."""

    number: int
    state: State
    path: tuple[int, ...]


@dataclass(frozen=True)
class Refusal:
    """Why no close is proposed: a sentence for `atlas runs show` and the run's dropped list."""

    why: str


def follow(start: int, look: Callable[[int], Hop | None]) -> Original | Refusal:
    """Follow `start`'s duplicate chain with `look` (None: the issue cannot be read)."""
    path: list[int] = []
    number = start
    while True:
        if number in path:
            return Refusal(f"#{start}'s duplicate chain loops ({' → '.join(f'#{n}' for n in (*path, number))})")
        path.append(number)
        if len(path) > MAX_HOPS:
            return Refusal(f"#{start}'s duplicate chain is longer than {MAX_HOPS} issues")
        hop = look(number)
        if hop is None:
            return Refusal(f"#{number} could not be read, so where its duplicates lead is unknown")
        if hop.state != "closed" or hop.reason == "reopened":
            return Original(number, "open", tuple(path))
        if hop.reason == "not_planned":
            return Original(number, "not_planned", tuple(path))
        if hop.reason == "duplicate" or hop.duplicate_of is not None:
            if hop.duplicate_of is None:
                return Refusal(f"#{number} was closed as a duplicate of an issue nobody recorded")
            number = hop.duplicate_of
            continue
        return Original(number, "completed", tuple(path))


def point(rt: WorkerParts, engine: Triage, record: TriageRecord, actions: list[TriageAction]) -> list[TriageAction]:
    """The close action pointed at the end of its original's chain, or dropped when the chain loops or leads
    nowhere (said in the run's dropped list); where it points is kept for the card and the comment."""
    close = next((a for a in actions if a.tool == "close_issue"), None)
    if close is None:
        return actions
    end = follow(int(close.arguments["duplicate_of"]), lambda n: _hop(rt, engine, n))
    if isinstance(end, Refusal):
        log.info("triage of #%s: no duplicate claim: %s", record.issue, end.why)
        record.dropped.append(f"duplicates: {end.why}")
        return [a for a in actions if a is not close]
    close.arguments["duplicate_of"] = end.number
    ref = _issue(rt, end.number)
    record.suggestions["original"] = {
        "id": end.number,
        "title": ref.title if ref else "",
        "url": ref.url if ref else None,
        "state": end.state,
        "path": list(end.path),
    }
    if end.state == "completed":  # say where it was fixed, when the synced pull requests tell
        fixed = fixed_by.where(rt.settings.data_dir, rt.settings.home, end.number)
        if fixed is not None:
            record.suggestions["original"]["fixed"] = fixed
    return actions


def _issue(rt: WorkerParts, number: int) -> IssueRef | None:
    try:
        return rt.tracker.issue(number)
    except (TrackerError, TrackerUnavailable):
        return None


def _hop(rt: WorkerParts, engine: Triage, number: int) -> Hop | None:
    """One issue of the chain as the tracker has it now. Its original: what the tracker recorded, else the synced
    history's, else a "Duplicate of #N" comment in the synced store (GitHub's issue has no field for it)."""
    ref = _issue(rt, number)
    if ref is None:
        return None
    known = engine.history.get(number)
    original = ref.duplicate_of or (known.duplicate_of if known is not None else None)
    if original is None and ref.state_reason == "duplicate" and rt.settings.github is not None:
        original = _named(rt, number)
    return Hop(ref.state, ref.state_reason, original)


def _named(rt: WorkerParts, number: int) -> int | None:
    from datasets.github.store import Store
    from workers.followup.notices import duplicate_in

    store = Store(rt.settings.data_dir)
    try:
        stored = store.exported(number) or {}
    finally:
        store.close()
    found = stored.get("duplicate_of") or duplicate_in(stored.get("comments") or [])
    return int(found) if found else None
