"""The demo tracker: writes are journaled, visible to the read-only read tools, and survive rebuilds."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from datasets import tracker_db, tracker_journal
from tests.support.approvals_data import LABELS, make_data
from tools.demo_tracker import SqliteTracker
from tools.errors import TrackerError
from tools.issue_store import IssueStore


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = make_data(tmp_path / "data")
    tracker_db.ensure_db(root)
    return root


def test_known_labels_are_the_datasets(data: Path) -> None:
    assert SqliteTracker(data).known_labels() == LABELS


def test_writes_are_seen_by_a_read_only_store_opened_before_them(data: Path) -> None:
    store = IssueStore(tracker_db.db_path(data))
    assert [c.body for c in store.comments(3)] == []
    tracker = SqliteTracker(data, "https://example.test/issues")
    tracker.add_labels(3, ["bug", "docs"], key="r1.c1")
    where = tracker.post_comment(3, "Fixed the zebracorn example.", key="r1.c2")
    closed = tracker.close_issue(3, "completed", None, key="r1.c3")
    assert where == "https://example.test/issues/3"
    assert closed.state == "closed" and closed.labels == ("bug", "docs")
    assert store.get(3).state == "closed" and store.get(3).comment_count == 1
    assert store.labels([3])[3] == ["bug", "docs"]
    assert [c.author for c in store.comments(3)] == ["atlas"]
    assert [i.id for i in store.search("zebracorn")] == [3]  # the FTS row was reindexed
    assert [i.id for i in store.search("docs cron", state="open")] == []


def test_a_rebuild_replays_the_journal(data: Path) -> None:
    tracker = SqliteTracker(data)
    tracker.post_comment(1, "A comment about quokkas.", key="k")
    tracker.close_issue(2, "duplicate", 1, key="k2")
    tracker_db.build(data)  # a fresh file from issues.jsonl, renamed over the old one
    store = IssueStore(tracker_db.db_path(data))
    assert store.get(2).state == "closed" and store.get(2).duplicate_of == 1
    assert store.comments(1)[-1].body == "A comment about quokkas."
    assert [i.id for i in store.search("quokkas")] == [1]
    assert len(tracker_journal.entries(tracker_journal.journal_path(data))) == 2
    tracker.add_labels(1, ["security"])  # in-place writes continue after the rebuild
    assert "security" in store.labels([1])[1]
    conn = sqlite3.connect(tracker_db.db_path(data))
    conn.execute("INSERT INTO issues_fts(issues_fts, rank) VALUES ('integrity-check', 0)")
    conn.close()


def test_a_changed_source_triggers_a_rebuild_that_keeps_the_writes(data: Path) -> None:
    SqliteTracker(data).add_labels(5, ["wontfix"])
    source = data / "issues" / "issues.jsonl"
    source.write_text(source.read_text() + "\n")
    os.utime(source, ns=(1, 1))
    tracker_db.ensure_db(data)
    assert "wontfix" in IssueStore(tracker_db.db_path(data)).labels([5])[5]


def test_refused_writes_are_not_journaled(data: Path) -> None:
    tracker = SqliteTracker(data)
    with pytest.raises(TrackerError, match="unknown labels: made-up"):
        tracker.add_labels(1, ["bug", "made-up"])
    with pytest.raises(TrackerError, match="no issue #999"):
        tracker.post_comment(999, "x")
    with pytest.raises(TrackerError, match="duplicate_of"):
        tracker.close_issue(1, "duplicate", None)
    with pytest.raises(TrackerError, match="already closed"):
        tracker.close_issue(4, "completed", None)
    assert tracker_journal.entries(tracker_journal.journal_path(data)) == []


def test_the_read_tools_connection_cannot_write(data: Path) -> None:
    with pytest.raises(sqlite3.OperationalError):
        IssueStore(tracker_db.db_path(data)).connection().execute("DELETE FROM issues")


def test_an_undo_reopens_and_removes_labels_through_the_journal_and_a_rebuild_keeps_it(data: Path) -> None:
    tracker = SqliteTracker(data)
    tracker.add_labels(3, ["bug", "docs"], key="r.a")
    tracker.close_issue(3, "duplicate", 1, key="r.b")
    reopened = tracker.reopen_issue(3, key="r.c")
    assert reopened.state == "open" and reopened.duplicate_of is None and reopened.closed_at is None
    with pytest.raises(TrackerError):
        tracker.reopen_issue(3)  # open already
    assert tracker.remove_labels(3, ["docs", "security"], key="r.d").labels == (
        "bug",
    )  # one it does not carry: skipped
    assert tracker.settle("remove_labels", {}, "r.d") == "Removed docs from #3."
    tracker_db.build(data)  # replayed in order from the journal
    store = IssueStore(tracker_db.db_path(data))
    assert store.get(3).state == "open" and store.labels([3])[3] == ["bug"]
