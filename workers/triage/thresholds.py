"""A repository's own thresholds, chosen on its own outcomes (issue 36): when to claim a duplicate, and
when to suggest each label.

The samples are the raw scores of past issues as of their creation (rolling.py replays them) beside
what was decided: whether the best candidate was the original the maintainers named, and which topic
labels each issue got. From them:

- **the duplicate claim**'s threshold is the lowest score at which false claims (a claim on an issue
  that is no duplicate, or naming the wrong original) stay within FALSE_CLAIMS of the non-duplicate
  issues; with fewer than MIN_DUPLICATES found originals no claim is made at all (only related issues);
- a history with fewer than MIN_NON_DUPLICATES closed non-duplicates (a new or tiny tracker) proves
  nothing either way: it gets strict fixed thresholds (FALLBACK_DUPLICATE, FALLBACK_LABEL), marked
  `calibrated: false`;
- **each label**'s threshold is the lowest score at which that label's suggestions were right at
  least its target (`label_target`) of the time over at least MIN_LABEL_OUTCOMES suggestions: the most
  recall the history allows at that precision. A label with fewer is not suggested ("not enough
  history", `Thresholds.unproven`). All version labels share one threshold (key `version`): each
  version is too rare to prove alone, and they are suggested alike. Labels are calibrated once the
  history has MIN_LABELLED labelled issues, whatever its duplicates: a label's proof is its own.
- **the targets** come from what a suggestion is worth (docs/triage.md, "What a label costs"): a right
  label saves a click, a wrong one costs a click to drop on the card and, when approved unseen, a
  misfiled issue found late. Suggesting pays above the break-even precision cost / (1 + cost): with a
  wrong topic label costing about five right ones (0.83) the target is the issue's goal, 0.85; a wrong
  version label misdirects a release's list of fixes (about nine: 0.9).

`extra` outcomes are maintainers' decisions recorded since (workers/triage/outcomes.py records them:
a rejected label, a duplicate claim reopened): each overrides or adds to the history's verdict for
that issue, so the next calibration learns from them. Pure: no I/O, deterministic for equal inputs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from workers.triage import labels as label_kinds

FALSE_CLAIMS = 0.03  # a claim is false on at most this share of past non-duplicates (the goal is 5%; this leaves room)
MIN_NON_DUPLICATES = 20  # under 34, 3% allows no false claim at all: the threshold clears every one
MIN_DUPLICATES = 3
LABEL_PRECISION = {"topic": 0.85, "version": 0.9}  # label_target: by the cost of a wrong one (module doc)
MIN_LABELLED = 20  # labelled issues before any label is calibrated
# Labelled issues before any label is suggested, even uncalibrated: four of black's first five labelled issues carry
# `unstable formatting`, so at 5, calibrated as of each issue, it was suggested on #74 and #224, wrong both times.
FIRST_LABELLED = 8
# Suggestions at or above the threshold, among past labelled issues (at the 0.85 target: at least 8 right of 9). At 8
# (7 right of 8), recalibrated as of each issue, a proof at the edge slipped through: Orbit's `comp:redis-broker`
# was then suggested at 0.5 and right 5 times in 7.
MIN_LABEL_OUTCOMES = 9
# No label is suggested below this score, whatever its history: under one half the score itself says "less likely than
# not", and a history right there only because no wrong issue scored there yet proves little (it was 0.25: Orbit's
# `comp:cron-scheduling`, proven 9 in 9 down to 0.41, was then right 7 times in 10, all the wrong ones under 0.65).
LABEL_FLOOR = 0.5
DUPLICATE_FLOOR = 0.2  # nor a duplicate claimed below this one
FIXED_LABEL = 0.6  # the engine's own label threshold (Thresholds.fixed): label_votes.LABEL_THRESHOLD
# A history too short to calibrate: stricter than the engine's own, so a new tracker gets few, near-certain
# suggestions (chosen on Orbit's and black's first issues: false claims 3.4% and 0.7%, label P 0.96 and 0.71).
FALLBACK_DUPLICATE = 0.5
FALLBACK_LABEL = 0.8  # a topic label's vote share while uncalibrated (from FIRST_LABELLED labelled issues)


@dataclass(frozen=True)
class Outcome:
    """One maintainer's decision on a suggestion, as triage_loop records it (workers/triage/outcomes.py).

    kind `label`: `value` is the label's name, `accepted` whether it was kept (approved, or added by hand:
    True; rejected, dropped before approving, removed afterwards: False). kind `duplicate`: `value` is the
    original's number as a string, `accepted` whether the claim stood (False: rejected, or the issue
    reopened). `at`: when it was decided (only outcomes before a moment count as of that moment).
    `score`: the suggestion's score when it was made, if known (else the replayed one is used)."""

    issue: int
    kind: Literal["label", "duplicate"]
    value: str
    accepted: bool
    at: datetime
    score: float | None = None


class OutcomeLike(Protocol):
    """What calibration reads of a recorded outcome: `Outcome` here, or workers/triage/outcomes.py's record
    (which has no score: the replayed one is used)."""

    @property
    def issue(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def accepted(self) -> bool: ...
    @property
    def at(self) -> datetime: ...


@dataclass(frozen=True)
class Sample:
    """One past issue's raw scores beside what was decided (rolling.sample builds it)."""

    issue: int
    top: int | None  # the best candidate
    top_score: float
    original: int | None  # what the maintainers named (None: not a duplicate)
    labels: dict[str, float]  # calibration key (family, or `version`) -> the score it had
    truth: frozenset[str]  # the keys the issue carries (topic families; `version` when its version label was right)
    labelled: bool  # it carries a topic label: a label verdict says something


@dataclass(frozen=True)
class Thresholds:
    """What one triage decision uses; `shown()` is what a card and `--json` print."""

    duplicate: float | None  # None: no claim (not enough history)
    labels: dict[str, float] | None  # key -> threshold; None: FIXED_LABEL for every label (no calibration)
    unproven: tuple[str, ...] = ()  # keys with too little history to suggest
    support: dict[str, int] = field(default_factory=dict)  # "non_duplicates", "duplicates", "labelled"
    calibrated: bool = True
    uncalibrated_label: float = FIXED_LABEL  # every label's threshold when `labels` is None

    @classmethod
    def fixed(cls, duplicate: float) -> Thresholds:
        """The engine's own thresholds, for a tracker with no calibration (its tests)."""
        return cls(duplicate, None, calibrated=False)

    def label(self, key: str) -> float | None:
        """The threshold of one label key, or None: not suggested."""
        if self.labels is None:
            return self.uncalibrated_label
        return self.labels.get(key)

    def shown(self) -> dict[str, object]:
        return {
            "calibrated": self.calibrated,
            "duplicate": self.duplicate,
            "labels": dict(sorted(self.labels.items())) if self.labels is not None else self.uncalibrated_label,
            "not_enough_history": list(self.unproven),
            "support": dict(self.support),
            "targets": {
                "false_claims": FALSE_CLAIMS,
                "duplicates": MIN_DUPLICATES,
                "first_labelled": FIRST_LABELLED,
                **_targets(),
            },
        }


def calibrate(
    samples: Sequence[Sample],
    extra: Iterable[OutcomeLike] = (),
    fallback: float | None = FALLBACK_DUPLICATE,
    labelled_issues: int = 0,
) -> Thresholds:
    """The thresholds `samples` (and the recorded `extra` outcomes) give; `fallback`: the duplicate threshold
    for a history too short to calibrate (None: no claim then); `labelled_issues`: the tracker's labelled issues,
    open ones too (a live calibration's votes read them), when more than the samples'."""
    rows = _with_outcomes(samples, extra)
    non_dups = [s for s in rows if s.original is None]
    found = [s for s in rows if s.original is not None and s.top == s.original]
    labelled = [s for s in rows if s.labelled]
    support = {"non_duplicates": len(non_dups), "duplicates": len(found), "labelled": len(labelled)}
    if len(non_dups) < MIN_NON_DUPLICATES and len(labelled) < MIN_LABELLED:
        if max(len(labelled), labelled_issues) < FIRST_LABELLED:  # one or two neighbours agree by chance: no label
            return Thresholds(fallback, {}, support=support, calibrated=False)
        return Thresholds(fallback, None, support=support, calibrated=False, uncalibrated_label=FALLBACK_LABEL)
    if len(non_dups) < MIN_NON_DUPLICATES:
        duplicate = fallback
    else:
        duplicate = _claim_threshold(rows, len(non_dups)) if len(found) >= MIN_DUPLICATES else None
    labels: dict[str, float] = {}
    unproven: list[str] = []
    by_key: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for s in labelled:
        for key, score in s.labels.items():
            by_key[key].append((score, key in s.truth))
    for key, scored in sorted(by_key.items()):
        t = _label_threshold(scored, label_target(key))
        if t is None:
            unproven.append(key)
        else:
            labels[key] = t
    return Thresholds(duplicate, labels, tuple(unproven), support)


def _claim_threshold(rows: Sequence[Sample], non_dups: int) -> float | None:
    """The lowest top score at which false claims stay within FALSE_CLAIMS of the non-duplicates."""
    allowed = math.floor(FALSE_CLAIMS * non_dups)
    ranked = sorted(
        ((s.top_score, s.original is not None and s.top == s.original) for s in rows if s.top is not None),
        key=lambda p: -p[0],
    )
    false, best = 0, None
    for i, (score, right) in enumerate(ranked):
        false += not right
        if false > allowed:
            break
        if i + 1 == len(ranked) or ranked[i + 1][0] < score:  # a threshold only between distinct scores
            best = score
    if best is None:
        return None
    return round(max(best, DUPLICATE_FLOOR), 4)


def _targets() -> dict[str, float]:
    """The label targets as shown: `label` for topic labels, `version` for version labels."""
    return {"label": LABEL_PRECISION["topic"], "version": LABEL_PRECISION["version"]}


def label_target(key: str) -> float:
    """The precision a label's suggestions must have shown: by its kind (a calibration key: `version` or a family)."""
    return LABEL_PRECISION["version" if key == "version" else "topic"]


def _label_threshold(scored: list[tuple[float, bool]], target: float) -> float | None:
    """The lowest score whose suggestions (score >= it) were right >= `target` over >= MIN_LABEL_OUTCOMES."""
    ranked = sorted((p for p in scored if p[0] >= LABEL_FLOOR), key=lambda p: -p[0])
    hits, best = 0, None
    for i, (score, right) in enumerate(ranked):
        hits += right
        if i + 1 < len(ranked) and ranked[i + 1][0] == score:
            continue
        if i + 1 >= MIN_LABEL_OUTCOMES and hits / (i + 1) >= target:
            best = score
    return None if best is None else round(best, 4)


def _with_outcomes(samples: Sequence[Sample], extra: Iterable[OutcomeLike]) -> list[Sample]:
    """The samples with the maintainers' recorded decisions laid over them (a decision beats the history)."""
    rows = {s.issue: s for s in samples}
    for o in sorted(extra, key=lambda o: o.at):
        s = rows.get(o.issue)
        score: float | None = getattr(o, "score", None)
        if o.kind not in ("label", "duplicate"):
            continue  # a reply's fate, say: not a threshold's business
        if o.kind == "duplicate":
            original = int(o.value) if o.value.isdigit() else None
            if s is None:
                if score is None or original is None:
                    continue
                s = Sample(o.issue, original, score, None, {}, frozenset(), False)
            if o.accepted and original is not None:
                rows[o.issue] = Sample(s.issue, s.top, s.top_score, original, s.labels, s.truth, s.labelled)
            elif s.top is not None and str(s.top) == o.value:  # the claim was wrong: not this original
                rows[o.issue] = Sample(s.issue, s.top, s.top_score, None, s.labels, s.truth, s.labelled)
            continue
        key = _key(o.value)
        if s is None:
            if score is None:
                continue
            s = Sample(o.issue, None, 0.0, None, {}, frozenset(), True)
        scores = dict(s.labels)
        if score is not None or key not in scores:
            scores[key] = score if score is not None else 0.0
        truth = s.truth | {key} if o.accepted else s.truth - {key}
        rows[o.issue] = Sample(s.issue, s.top, s.top_score, s.original, scores, truth, True)
    return list(rows.values())


def _key(label: str) -> str:
    return "version" if label_kinds.kind(label) == "version" else label_kinds.family(label)
