"""The most label recall a backtest's rules allow: what a perfect label scorer would get (issue 36).

A label is suggested in the rolling backtest only once its history shows its precision
(thresholds.py: MIN_LABEL_OUTCOMES right suggestions among the earlier closed issues, recalibrated
every CALIBRATE_EVERY, over the WINDOW before), and a tracker's first issues get uncalibrated
thresholds. A scorer that gave every right label 1 and every wrong one 0 would still miss each label
until its history had that many examples: on a small history (black's 166 closed issues, most labels
seen under 15 times) that caps the recall far below 1, whatever the scorer. This replays exactly those
rules with perfect scores, so the bench can show the cap beside the figure (an upper bound: in the
uncalibrated phase every label used before counts as found).
"""

from __future__ import annotations

from collections import Counter

from workers.triage import backtest, rolling
from workers.triage import labels as label_kinds
from workers.triage import thresholds as rules
from workers.triage.history import History, Record, known_before


def recall_ceiling(history: History) -> float:
    """The label recall of a perfect scorer under the rolling calibration's rules, on `history`'s closed issues."""
    closed = [r for r in history.records if r.state == "closed"]
    names = backtest.canonical_names(history.records)
    hits = wanted = 0
    provable: set[str] = set()
    for k, record in enumerate(closed):
        if k % rolling.CALIBRATE_EVERY == 0:
            provable = _provable(closed[max(0, k - rolling.WINDOW) : k], record.when)
        decided = {names.get(n, n) for n in record.labels if label_kinds.suggestable(n) or _version(n)}
        wanted += len(decided)
        hits += sum(_key(n) in provable for n in decided)
    return round(hits / wanted, 3) if wanted else 0.0


def _provable(earlier: list[Record], when: str) -> set[str]:
    """The label keys a perfect scorer's history would let through as of `when`."""
    usable = [r for r in earlier if r.duplicate_of is None or known_before(r.duplicate_since, when)]
    keys = [{_key(n) for n in r.labels if label_kinds.suggestable(n) or _version(n)} for r in usable]
    labelled = [k for k in keys if k]
    non_duplicates = sum(r.duplicate_of is None for r in usable)
    seen = Counter(key for k in labelled for key in k)
    if non_duplicates < rules.MIN_NON_DUPLICATES and len(labelled) < rules.MIN_LABELLED:
        return set(seen) if len(labelled) >= rules.FIRST_LABELLED else set()  # uncalibrated: all it has seen
    return {key for key, n in seen.items() if n >= rules.MIN_LABEL_OUTCOMES}


def _version(name: str) -> bool:
    return label_kinds.kind(name) == "version"


def _key(name: str) -> str:
    return "version" if _version(name) else label_kinds.family(name)
