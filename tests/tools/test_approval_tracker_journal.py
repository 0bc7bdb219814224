"""The demo tracker never reports as failed, or leaves unseen, a write its journal holds (issue 22, item 24).

A write happens when it is journaled (issues/writes.db); index.db, what reads see, catches up. A writer
killed between the two, or an index.db locked past the apply timeout, must not become "it did not go
through" (the maintainer redoes it, and the journaled one lands too: two comments).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from datasets import tracker_db, tracker_journal
from tests.tools.test_tracker import data  # noqa: F401  # the demo data folder, its index built
from tools.demo_tracker import SqliteTracker
from tools.issue_store import IssueStore


def test_a_write_journaled_by_a_killed_writer_is_settled_from_the_journal_and_shown(data: Path) -> None:  # noqa: F811
    tracker = SqliteTracker(data, "https://example.test/issues")
    journal = tracker_journal.journal_path(data)
    with tracker_journal.locked(journal.parent):  # what a writer killed right after journaling leaves
        tracker_journal.append(journal, "comment", 3, {"body": "Fixed in 3.1.2."}, author="atlas", key="run1.call_c")
        tracker_journal.append(journal, "add_labels", 3, {"labels": ["bug"]}, author="atlas", key="run1.call_l")
    store = IssueStore(tracker_db.db_path(data))
    assert store.get(3).comment_count == 0  # not yet in index.db

    assert (
        tracker.settle("post_comment", {"issue_id": 3, "body": "Fixed in 3.1.2."}, "run1.call_c")
        == "Posted the comment on #3 (https://example.test/issues/3)."
    )
    labeled = tracker.settle("add_labels", {"issue_id": 3, "labels": ["bug"]}, "run1.call_l")
    assert labeled is not None and labeled.startswith('Labeled #3 "') and "Its labels now: bug, docs." in labeled
    assert store.get(3).comment_count == 1 and sorted(store.labels([3])[3]) == ["bug", "docs"]  # reads show both now
    assert tracker.settle("post_comment", {"issue_id": 3, "body": "other"}, "run1.call_never") is None
    assert len(tracker_journal.entries(journal)) == 2  # settling wrote nothing again


def test_an_index_locked_past_the_timeout_is_not_reported_as_failed(
    data: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tracker_journal, "SYNC_TIMEOUT_SECONDS", 0.2, raising=False)
    tracker = SqliteTracker(data)
    holder = sqlite3.connect(tracker_db.db_path(data), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds index.db
    try:
        where = tracker.post_comment(3, "Fixed in 3.1.2.", key="run2.call_c")
        closed = tracker.close_issue(5, "completed", None, key="run2.call_x")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert where == "issue #3, comment 1"
    assert closed.number == 5 and closed.state == "closed"
    journal = tracker_journal.journal_path(data)
    assert [(e.kind, e.issue_id) for e in tracker_journal.entries(journal)] == [("comment", 3), ("close", 5)]
    assert tracker.issue(5).state == "closed"  # type: ignore[union-attr]  # the next read applies what was journaled
    store = IssueStore(tracker_db.db_path(data))
    assert store.get(3).comment_count == 1 and store.get(5).state == "closed"
