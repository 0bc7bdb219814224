"""Evidence for and against a duplicate (issue 36): normalised error signatures, traceback frames, versions,
code identifiers and the reporter's explicit references; and label schemes of any style."""

from __future__ import annotations

from tests.support.triage_data import engine, issue
from workers.triage import labels, signatures

CRASH = (
    "Traceback (most recent call last):\n  File "
    "\"/home/ann/venv/lib/rocket/loader.py\", line 12, in load\nKeyError: 'retry'"
)
OTHER = (
    'Traceback (most recent call last):\n  File "C:\\\\src\\\\rocket\\\\cli.py", '
    "line 40, in main\nPermissionError: [Errno 13] /tmp/x"
)


def test_error_signatures_are_normalised_and_frames_keep_file_and_function() -> None:
    a = signatures.of("Crash", "FileNotFoundError: [Errno 2] No such file: '/home/ann/a.toml' at 0x7f3a2b")
    b = signatures.of("Crash", "FileNotFoundError: [Errno 2] No such file: '/srv/b.toml' at 0x55aa01")
    assert a.errors == b.errors and a.errors  # paths, numbers, addresses and quoted values normalised
    assert signatures.of("x", CRASH).frames == frozenset({"loader.py:load"})
    assert signatures.of("x", "use `rocket.scheduler.load_policy` and retry_policy").identifiers >= {
        "rocket.scheduler.load_policy",
        "retry_policy",
    }


def test_the_same_error_counts_for_a_match_and_different_errors_and_frames_against() -> None:
    mine = signatures.of("Scheduler fails", CRASH)
    same = signatures.weigh(mine, signatures.of("Loader crash", CRASH.replace("ann", "bob")), 3)
    other = signatures.weigh(mine, signatures.of("CLI crash", OTHER), 3)
    assert same.delta > 0 > other.delta
    assert any("same error" in r for r in same.reasons) and any("different errors" in r for r in other.reasons)


def test_a_shared_frame_counts_only_with_the_same_error() -> None:
    """One loader raises for every bad setting (Orbit's #64 and #40: two ConfigInvalid reports about different
    settings share `loader.py:load`): a frame in common says the same code failed, not the same problem."""
    mine = signatures.of("Loader crash", CRASH)
    same = signatures.weigh(mine, signatures.of("Loader crash", CRASH.replace("ann", "bob")), 3)
    other_error = CRASH.replace("KeyError: 'retry'", "ValueError: broker_url must be a URL")
    other = signatures.weigh(mine, signatures.of("Loader crash", other_error), 3)
    assert any("same traceback frame" in r for r in same.reasons)
    assert not any("same traceback frame" in r for r in other.reasons)
    assert other.delta < 0 < same.delta  # different errors through one frame: only the errors count


def test_same_as_or_reopening_an_earlier_issue_raises_that_issue_and_is_never_an_action() -> None:
    rows = [
        issue(1, "Dark mode for the dashboard", "A dark theme, please.", ["enhancement"]),
        issue(2, "Scheduler drifts", "The scheduler drifts a minute a day.", ["bug"]),
        issue(3, "Colours", "Too bright.", ["bug"]),
    ]
    tracker = engine(rows)
    from workers.triage.engine import NewIssue

    plain = tracker.score(NewIssue(9, "Night colours", "The pages are too bright at night."))
    named = tracker.score(NewIssue(9, "Night colours", "The pages are too bright at night. Same as #2, reopening #2."))
    score = {c.id: c.score for c in named.candidates}
    assert score.get(2, 0) > {c.id: c.score for c in plain.candidates}.get(2, 0) + 0.3
    assert any("names #2" in r for c in named.candidates if c.id == 2 for r in c.reasons)
    later = tracker.score(NewIssue(9, "Night colours", "Same as #12 and duplicate of #9."))  # no such earlier issue
    assert {c.id for c in later.candidates} <= {1, 2, 3}


def test_any_label_scheme_renamed_labels_and_status_labels_of_every_scheme() -> None:
    assert labels.family("kind/bug") == labels.family("Bug") == labels.family("T: bug") == "bug"
    assert labels.family("area/solver") == "solver" and labels.kind("area/solver") == "topic"
    for name in (
        "status/triage",
        "Triage",
        "status/waiting-on-response",
        "needs-repro",
        "S: awaiting response",
        "good first issue",
        "help wanted",
        "triage/accepted",
        "priority/high",
        "lifecycle/stale",
    ):
        assert labels.kind(name) == "status" or labels.kind(name) == "decision", name
    for name in ("status/duplicate", "wontfix", "R: not a bug", "resolution/invalid", "works-for-me"):
        assert labels.kind(name) == "decision", name
    assert labels.is_duplicate_label("status/duplicate")
    rows = [
        issue(
            i,
            f"Solver loops on markers {i}",
            "The resolver never ends with markers.",
            ["kind/bug", "area/solver", "status/triage"],
        )
        for i in range(1, 8)
    ]
    names = [s.name for s in engine(rows).triage(7).labels]
    assert "area/solver" in names and "kind/bug" in names and "status/triage" not in names
