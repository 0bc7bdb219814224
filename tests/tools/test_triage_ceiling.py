"""bench/triage_ceiling.py: the label recall a perfect scorer would get under the rolling calibration's rules."""

from __future__ import annotations

from bench.triage_ceiling import recall_ceiling
from tests.support.triage_data import issue
from workers.triage.history import History


def test_a_perfect_scorer_still_misses_each_label_until_its_history_proves_it() -> None:
    # 25 closed bug reports, the last five also `C: vim`: a label seen 5 times is never proven (9 needed).
    rows = [issue(n, f"Crash {n}", f"It crashes, case {n}.", ["T: bug"]) for n in range(1, 21)]
    rows += [
        issue(n, f"Vim crash {n}", f"The vim plugin crashes, case {n}.", ["T: bug", "C: vim"]) for n in range(21, 26)
    ]
    # Calibrated as of every issue: issues 1-8 get nothing (fewer than 8 labelled before them), 9-20 every label
    # seen (uncalibrated: all it has seen, `T: bug` only), 21-25 `T: bug` proven by 20 earlier, `C: vim` not.
    assert recall_ceiling(History.from_rows(rows)) == round((12 + 5) / 30, 3)


def test_status_labels_and_unlabelled_issues_are_not_wanted() -> None:
    rows = [issue(n, f"Crash {n}", "It crashes.", ["T: bug", "S: needs repro"]) for n in range(1, 31)]
    rows += [issue(n, f"Idea {n}", "An idea.", []) for n in range(31, 41)]
    assert recall_ceiling(History.from_rows(rows)) == round(22 / 30, 3)  # issues 9-30 of the 30 bug reports
