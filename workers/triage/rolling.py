"""Calibration over a repository's own history: rolling in the backtest, kept per engine for live triage.

**Rolling (the backtest).** Every replayed issue is decided with the thresholds that the history
*before its creation* gives (thresholds.calibrate over the earlier replayed issues' raw scores and
outcomes), recalibrated as of every issue (CALIBRATE_EVERY = 1), as a worker does (`live` calibrates again
for every new issue, whose engine is grown, and after each sync), over at most the WINDOW closed issues before it
(as a live calibration does). An
earlier issue counts only with what was known at that moment: a duplicate decision made later (its
`duplicate_since` not before the issue) leaves that issue out, and recorded `extra` outcomes count only
if decided before. The issue's own outcome, and any later one, are never in its thresholds.
(Labels carry no date in the export: an earlier issue's labels are its labels now, as for the votes.)

**Live.** `live(engine, extra)` calibrates on the latest WINDOW closed issues, replayed as of their
creation, and keeps the result on the engine: the same history (the tracker unchanged: an issue closed or
relabelled is another history) and the same number of recorded decisions (in steps of DECISIONS_EVERY) reuse
it. Besides, the DECISIONS_EVERY-th decision recorded since the last calibration queues the recalibration job
(workers/triage/recalibration.py), which calibrates `fresh` on every decision so far. An engine grown by new
issues (a sync, a webhook) keeps the raw replays of the issues it had, so only new closed issues are replayed.
Every calibration that replayed something keeps the replays on disk per tracker revision (calibration_store.py):
a worker started again on an unchanged tracker, or after a sync's recalibration (workers/jobs/calibration.py),
reads them back instead of replaying them.
`extra`: the recorded decisions, e.g. `workers.triage.outcomes.load(conn, repo)` (any record with issue, kind,
value, accepted, at: thresholds.OutcomeLike).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workers.triage import calibration_store
from workers.triage import labels as label_kinds
from workers.triage.engine import Scored, Triage
from workers.triage.history import History, Record, known_before
from workers.triage.recalibration import DECISIONS_EVERY as DECISIONS_EVERY  # decisions that recalibrate
from workers.triage.thresholds import FALLBACK_DUPLICATE, OutcomeLike, Sample, Thresholds, calibrate

# Replayed issues between two calibrations in the backtest: 1, as live triage (it was 10: a label's proof was then
# sampled at every tenth issue only, and on Orbit `comp:redis-broker`, proven at the edge, was right 5 times in 7 live).
CALIBRATE_EVERY = 1
WINDOW = 1000  # the latest closed issues a live calibration replays


@dataclass(frozen=True)
class Raw:
    """What a replay scored, kept to calibrate: the best candidate, and each label key's (name, score)."""

    top: int | None
    top_score: float
    labels: dict[str, tuple[str, float]]


@dataclass
class Live:
    """An engine's calibration state: raw replays by issue, and the thresholds of its last calibration."""

    raw: dict[int, Raw] = field(default_factory=dict)
    key: tuple[int, int] | None = None
    thresholds: Thresholds | None = None
    history: History | None = None  # what they were calibrated on: a grown engine shares this state (copy.copy)


def raw_of(scored: Scored) -> Raw:
    top = scored.candidates[0] if scored.candidates else None
    labels: dict[str, tuple[str, float]] = {}
    for s in scored.labels:
        if s.family not in labels or labels[s.family][1] < s.score:
            labels[s.family] = (s.name, s.score)
    return Raw(top.id if top else None, top.score if top else 0.0, labels)


def sample(record: Record, raw: Raw) -> Sample:
    """A replayed issue's raw scores beside what the maintainers decided on it."""
    families = {label_kinds.family(n) for n in record.labels if label_kinds.suggestable(n)}
    truth = {k for k in raw.labels if k in families}
    version = raw.labels.get("version")
    if version is not None and version[0] in record.labels:
        truth.add("version")
    labelled = bool(families) or any(label_kinds.kind(n) == "version" for n in record.labels)
    return Sample(
        record.id,
        raw.top,
        raw.top_score,
        record.duplicate_of,
        {k: score for k, (_, score) in raw.labels.items()},
        frozenset(truth),
        labelled,
    )


def rolling(
    records: Sequence[Record],
    raws: dict[int, Raw],
    extra: Iterable[OutcomeLike] = (),
    fallback: float | None = FALLBACK_DUPLICATE,
) -> dict[int, Thresholds]:
    """issue -> the thresholds as of its creation, for `records` (replayed issues, in creation order);
    `fallback`: the fixed duplicate threshold while the history is too short to calibrate."""
    dated = sorted(((o.at.strftime("%Y-%m-%dT%H:%M:%SZ"), o) for o in extra), key=lambda p: p[0])
    stamps, outcomes = [d for d, _ in dated], [o for _, o in dated]  # by stamp: those known before are a prefix
    samples = [sample(r, raws[r.id]) for r in records]
    out: dict[int, Thresholds] = {}
    current: Thresholds | None = None
    for k, record in enumerate(records):
        if current is None or k % CALIBRATE_EVERY == 0:
            when = record.when
            usable = [
                samples[j]
                for j in range(max(0, k - WINDOW), k)
                if records[j].duplicate_of is None or known_before(records[j].duplicate_since, when)
            ]
            decided = bisect.bisect_left(range(len(stamps)), True, key=lambda i: not known_before(stamps[i], when))
            current = calibrate(usable, outcomes[:decided], fallback)
        out[record.id] = current
    return out


def live(engine: Triage, extra: Sequence[OutcomeLike] = (), fresh: bool = False) -> Thresholds:
    """The thresholds for a new issue now: calibrated on the latest closed issues and the recorded decisions;
    `fresh`: calibrated again even when the history and the step of decisions are unchanged (the recalibration job:
    every decision recorded so far counts, not only those of the last step)."""
    state = getattr(engine, "calibration", None)
    if not isinstance(state, Live):
        state = Live()
        engine.calibration = state
    key = (len(engine.history), len(extra) // DECISIONS_EVERY)
    if not fresh and state.key == key and state.history is engine.history and state.thresholds is not None:
        return state.thresholds  # an issue closed or relabelled gives another history, of the same length
    closed = [r for r in engine.history.records if r.state == "closed"][-WINDOW:]
    rev = None
    if not state.raw:  # this process's first calibration: what one kept for this very tracker, if any
        rev = calibration_store.revision(engine.history, engine.mode)
        state.raw.update({n: _raw(v) for n, v in calibration_store.load(engine.derived, rev).items()})
    missing = [r for r in closed if r.id not in state.raw]
    for record in missing:
        state.raw[record.id] = raw_of(engine.score(record.id))
    if missing:  # kept for this very tracker, so a worker started after a sync reads them back too
        rev = rev or calibration_store.revision(engine.history, engine.mode)
        calibration_store.save(engine.derived, rev, {r.id: _json(state.raw[r.id]) for r in closed})
    labelled = sum(1 for families in engine.book.families if families)  # open issues' labels vote too
    state.thresholds = calibrate([sample(r, state.raw[r.id]) for r in closed], extra, labelled_issues=labelled)
    state.key, state.history = key, engine.history
    return state.thresholds


def as_of(engine: Triage, number: int, extra: Iterable[OutcomeLike] = ()) -> Thresholds:
    """The thresholds issue `number` of the history would have had at its creation (`atlas triage N`): the
    rolling calibration over the closed issues before it, and the `extra` recorded decisions made before it."""
    record = engine.history.by_id[number]
    before = [r for r in engine.history.records if r.state == "closed" and r.seq < record.seq][-WINDOW:]
    raws = {r.id: raw_of(engine.score(r.id)) for r in before}
    usable = [
        sample(r, raws[r.id]) for r in before if r.duplicate_of is None or known_before(r.duplicate_since, record.when)
    ]
    decided = [o for o in extra if known_before(o.at.strftime("%Y-%m-%dT%H:%M:%SZ"), record.when)]
    return calibrate(usable, decided)


def _json(raw: Raw) -> list[Any]:
    return [raw.top, raw.top_score, {k: list(v) for k, v in raw.labels.items()}]


def _raw(kept: list[Any]) -> Raw:
    top, score, labels = kept
    return Raw(top, float(score), {k: (str(v[0]), float(v[1])) for k, v in labels.items()})
