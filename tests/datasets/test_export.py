"""issues.jsonl as the export writes it in one merged pass: each line the issue `exported` reads back with its own
comments in thread order (never a pull request's, never another issue's), and the digest it returns its sha256."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from datasets import tracker_db
from datasets.github import index as github_index
from datasets.github.export import exporting
from datasets.github.store import Store


def _issue(number: int, pr: bool = False) -> dict[str, object]:
    raw: dict[str, object] = {"number": number, "id": 900 + number, "title": f"Issue {number}", "body": "é ✓"}
    raw.update(updated_at="2025-01-01T00:00:00Z", state="open", user={"login": "a"})
    return {**raw, "pull_request": {"merged_at": None}} if pr else raw


def _comment(cid: int, number: int, created: str | None) -> dict[str, object]:
    return {"id": cid, "body": f"comment {cid}", "created_at": created, "user": {"login": "b"}}


def _store(folder: Path) -> Store:
    store = Store(folder)
    with store.batch():
        for number in (1, 2, 4, 7):
            store.put_issue(_issue(number))
        store.put_issue(_issue(3, pr=True))  # a pull request's comments sit between two issues'
        comments = [(10, 2, "2025-03-01"), (11, 2, "2025-01-01"), (12, 3, "2025-01-01"), (13, 7, None)]
        comments += [(14, 2, "2025-01-01"), (15, 9, "2025-01-01"), (16, 4, "2025-02-01")]  # 9: no such issue
        for cid, number, created in comments:
            store.put_comment(_comment(cid, number, created), number)
    return store


def test_each_line_is_the_issue_with_its_own_comments_in_thread_order(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        with exporting(tmp_path):
            target, digest = store.export_locked(), store.exported_sha256
        lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
        assert [line["id"] for line in lines] == [1, 2, 4, 7]
        assert lines == [store.exported(n) for n in (1, 2, 4, 7)]
        assert [c["body"] for c in lines[1]["comments"]] == ["comment 11", "comment 14", "comment 10"]
        assert digest == hashlib.sha256(target.read_bytes()).hexdigest()
    finally:
        store.close()


def test_an_event_applied_in_place_stamps_the_index_with_the_file_it_wrote(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        store.export()
    finally:
        store.close()
    db = tracker_db.ensure_db(tmp_path)
    github_index.apply(tmp_path, lambda s: s.put_comment(_comment(20, 1, "2025-04-01"), 1))
    conn = sqlite3.connect(db)
    try:
        stamp = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    finally:
        conn.close()
    assert stamp["source_sha256"] == hashlib.sha256((tmp_path / tracker_db.SOURCE).read_bytes()).hexdigest()
