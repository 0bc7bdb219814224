"""The card's thresholds line (issue 36): which thresholds a triage's suggestions passed, and from how much of the
repository's history, in one sentence from the figures the decision used (Thresholds.shown)."""

from __future__ import annotations

from workers.new_issues.wording import thresholds_line
from workers.triage import thresholds
from workers.triage.thresholds import Sample, Thresholds, calibrate


def _history(n: int, originals: bool = True) -> list[Sample]:
    """`n` closed issues: the odd ones duplicates found at a high score (when `originals`), all labelled `bug`."""
    return [
        Sample(
            i,
            1,
            0.9 if i % 2 else i / (2 * n),
            1 if i % 2 and originals else None,
            {"bug": thresholds.LABEL_FLOOR + i / (10 * n), "version": 0.9},  # scores a label may be suggested at
            frozenset({"bug", "version"}),
            True,
        )
        for i in range(n)
    ]


def test_a_calibrated_line_names_the_claim_threshold_its_false_share_and_the_history_it_came_from() -> None:
    t = calibrate(_history(80))
    assert t.calibrated and t.duplicate is not None
    line = thresholds_line(t.shown())
    assert line is not None
    non_dups = t.support["non_duplicates"]
    share = f"{thresholds.FALSE_CLAIMS:.0%}"
    assert f"claims at >= {t.duplicate:.2f} (at most {share} false on {non_dups} earlier non-duplicates)" in line
    assert f"bug >= {t.label('bug'):.2f}" in line and f"on {t.support['labelled']} earlier labelled issues" in line
    assert "85%" in line and "versions 90%" in line  # each kind's own target


def test_no_claims_and_unproven_labels_are_said_and_a_short_history_or_none_too() -> None:
    history = _history(60, originals=False)
    history += [Sample(100 + i, None, 0.0, None, {"rare": 0.9}, frozenset(), True) for i in range(3)]
    t = calibrate(history)
    line = thresholds_line(t.shown())
    assert line is not None and t.duplicate is None
    assert f"no duplicate claims yet (0 originals found in the history, {thresholds.MIN_DUPLICATES} needed)" in line
    assert "1 not suggested (not enough history)" in line  # `rare`: right 0 of 3
    short = thresholds_line(calibrate(_history(6)).shown())
    assert short is not None and short.startswith("Not calibrated yet (6 earlier closed issues)")
    none_yet = thresholds_line(calibrate(_history(6)[: thresholds.FIRST_LABELLED - 1]).shown())
    assert none_yet is not None and none_yet.endswith(
        f"no labels until {thresholds.FIRST_LABELLED} issues are labelled."
    )
    fixed = thresholds_line(Thresholds.fixed(0.384).shown())
    assert fixed == "Fixed thresholds (no calibration): claims at >= 0.38; labels at >= 0.60."
    assert thresholds_line(None) is None  # the model answered: no thresholds were used
