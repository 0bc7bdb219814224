"""Events applied to the index in place give the same index a full rebuild would."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

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
