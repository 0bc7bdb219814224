"""The duplicate score's calibration: one close earlier issue is a duplicate, several equally close ones
are a common kind of report; a shared error code is evidence; the opening is the prose, not the logs."""

from __future__ import annotations

from tests.support.triage_data import engine, issue
from workers.triage import duplicates, meaning

REPORT = ("Worker hangs on shutdown", "After SIGTERM the worker waits forever for the lease keeper thread to stop.")


def test_a_second_equally_close_issue_lowers_the_score() -> None:
    alone = [issue(1, *REPORT), issue(2, "Dashboard colours", "The dashboard is too bright.")]
    crowded = [issue(1, *REPORT), issue(2, REPORT[0] + " (again)", REPORT[1])]
    tracker = engine(alone)  # type: ignore[arg-type]
    ranked_alone = duplicates.rank(
        tracker.history, tracker.versions, tracker.book.families, "\n".join(REPORT), "9999", {0: 0.8, 1: 0.1}, {}, 3
    )
    ranked_crowded = duplicates.rank(
        engine(crowded).history,
        tracker.versions,
        tracker.book.families,  # type: ignore[arg-type]
        "\n".join(REPORT),
        "9999",
        {0: 0.8, 1: 0.8},
        {},
        3,
    )
    assert ranked_alone[0].id == 1 and ranked_alone[0].score > ranked_crowded[0].score
    assert ranked_crowded[0].score < 0.8 and ranked_alone[0].score == round(0.8 - duplicates.MARGIN * 0.1, 3)


def test_a_shared_error_code_or_exception_name_raises_the_score() -> None:
    assert duplicates.named_signals("ORB-1601 OIDCLoginFailed; then KeyError: 'x' and a ValueError") == frozenset(
        {"ORB-1601", "KeyError", "ValueError"}
    )
    assert duplicates.named_signals("orb-1601 an error occurred, version 3.0.1") == frozenset()
    rows = [
        issue(1, "Login fails behind the proxy", "The callback goes to http and the login fails: ORB-1601."),
        issue(2, "Colours", "Too bright."),
    ]
    tracker = engine(rows)  # type: ignore[arg-type]
    query = "Proxy login fails\nThe login fails with ORB-1601 behind our proxy."

    def score(signals: list[frozenset[str]]) -> float:
        return duplicates.rank(
            tracker.history,
            tracker.versions,
            tracker.book.families,
            query,
            "9999",
            {0: 0.4, 1: 0.1},
            {},
            3,
            None,
            signals,
        )[0].score

    assert score(tracker.signals) == round(score([frozenset(), frozenset()]) + duplicates.SHARED_SIGNAL, 3)
    assert duplicates.SHARED_SIGNAL > 0


def test_the_opening_is_the_title_and_the_first_prose_words() -> None:
    body = (
        "### What happened\n\nThe worker dies at start.\n\n```\nTraceback (most recent "
        "call last):\n  boom\n```\n| orbit | 3.0 |\n- a list item"
    )
    assert meaning.opening("Worker dies", body) == "Worker dies. The worker dies at start."
    assert meaning.opening("Only a title", "```\ncode only\n```") == "Only a title"
    long = " ".join(f"w{i}" for i in range(200))
    assert len(meaning.opening("T", long).split()) == 1 + meaning.OPENING_WORDS
