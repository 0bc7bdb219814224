"""Events applied to the index in place give the same index a full rebuild would."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from datasets import tracker_db
from datasets.github import index as github_index
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for

TABLES = (
    "SELECT id, title, body, state, author, closed_at, duplicate_of, comment_count FROM issues ORDER BY id",
    "SELECT issue_id, position, author, body FROM comments ORDER BY issue_id, position",
    "SELECT il.issue_id, l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id ORDER BY 1, 2",
)
QUERIES = ("zeppelin", "hovercraft", "kestrel", "retry", "worker")


def _dump(db: Path) -> tuple[list[object], ...]:
    conn = sqlite3.connect(db)
    try:
        tables = [conn.execute(sql).fetchall() for sql in TABLES]
        hits = [
            conn.execute("SELECT rowid FROM issues_fts WHERE issues_fts MATCH ? ORDER BY rowid", (q,)).fetchall()
            for q in QUERIES
        ]
        return (*tables, hits)
    finally:
        conn.close()


def test_in_place_updates_match_a_rebuild(tmp_path: Path) -> None:
    with GitHubAPI(generate(60, comments=80)) as api:
        settings = settings_for(api, tmp_path)
        run_sync(api, settings)
        folder, repo = settings.data_dir, api.repo
        issues = [n for n, i in repo.issues.items() if "pull_request" not in i]
        db = tracker_db.db_path(folder)
        built_at = db.stat().st_ino
        edited = repo.edit_issue(issues[0], title="Zeppelin workers hang", labels=[repo.add_label("kestrel")])
        github_index.apply(folder, lambda store: store.put_issue(edited))
        comment = repo.add_comment(issues[1], "hovercraft mode fixes it")
        github_index.apply(folder, lambda store: store.put_comment(comment, issues[1]))
        github_index.apply(folder, lambda store: store.delete_issue(issues[2]))
        github_index.apply(folder, lambda store: store.delete_comment(comment["id"]))
        assert db.stat().st_ino == built_at  # updated in place, never rebuilt
        assert tracker_db.ensure_db(folder) == db and db.stat().st_ino == built_at  # and current for issues.jsonl
        fresh = tmp_path / "fresh"
        shutil.copytree(folder / "issues", fresh / "issues", ignore=shutil.ignore_patterns("orbit.db*"))
        assert _dump(db) == _dump(tracker_db.build(fresh))
        assert api.violations == []


def test_a_reader_during_a_webhook_s_update_waits_for_its_stamp_instead_of_rebuilding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with GitHubAPI(generate(30, comments=40)) as api:
        settings = settings_for(api, tmp_path)
        run_sync(api, settings)
        folder, repo = settings.data_dir, api.repo
        db = tracker_db.db_path(folder)
        built_at = db.stat().st_ino
        number = next(n for n, i in repo.issues.items() if "pull_request" not in i)
        edited = repo.edit_issue(number, title="Zeppelin workers hang")
        exported, real = threading.Event(), github_index.update_in_place

        def slow_update(*args: object) -> bool:  # issues.jsonl replaced, the index not yet restamped
            exported.set()
            time.sleep(0.3)
            return real(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(github_index, "update_in_place", slow_update)
        worker = threading.Thread(target=github_index.apply, args=(folder, lambda s: s.put_issue(edited)))
        worker.start()
        assert exported.wait(10)
        rebuilds: list[Path] = []
        monkeypatch.setattr(tracker_db, "write_db", lambda target, *a: rebuilds.append(target))
        assert tracker_db.ensure_db(folder) == db  # a reader (the web process, another worker, a poller) meanwhile
        worker.join(10)
        assert rebuilds == [] and db.stat().st_ino == built_at  # it waited for the in-place update, no rebuild
        conn = sqlite3.connect(db)
        assert conn.execute("SELECT title FROM issues WHERE id = ?", (number,)).fetchone() == ("Zeppelin workers hang",)
        conn.close()
