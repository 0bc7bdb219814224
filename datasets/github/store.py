"""A synced GitHub repository on disk: a staging SQLite database, and the folder the tools read.

Everything the sync, webhooks and tracker writes learn lands in `<folder>/.sync/state.db` one page
(or one event) at a time: issues and pull requests by number, comments by id, labels, doc blob shas,
ETags by URL, and the sync's cursor. `export` then streams it, issue by issue, into
`issues/issues.jsonl` (datasets/github/export.py), which the tools' derived database is rebuilt from (or,
after one event, updated in place: datasets/github/index.py). Nothing here holds the repository in memory,
so memory stays flat in its size. The records' shape is datasets/github/records.py's.

An issue or comment older (by `updated_at`) than the one stored is not applied: webhooks arrive in
any order, and a late one must not undo a later edit.

Pull requests are stored (their comments arrive in the same listing) but left out of the export:
issue search never returns a pull request.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from datasets.github import export as exports
from datasets.github.export import exporting
from datasets.github.records import issue_record, number_from_url, older

STATE = Path(".sync") / "state.db"
SCHEMA = """
CREATE TABLE IF NOT EXISTS issues(number INTEGER PRIMARY KEY, gh_id INTEGER, is_pr INTEGER NOT NULL,
    updated_at TEXT, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS comments(id INTEGER PRIMARY KEY, issue_number INTEGER NOT NULL, created_at TEXT,
    record TEXT NOT NULL, updated_at TEXT);
CREATE INDEX IF NOT EXISTS comments_by_issue ON comments(issue_number, created_at, id);
CREATE TABLE IF NOT EXISTS labels(name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS docs(path TEXT PRIMARY KEY, sha TEXT NOT NULL, doc_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS etags(url TEXT PRIMARY KEY, etag TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pull_files(number INTEGER PRIMARY KEY, updated_at TEXT, files TEXT NOT NULL);
"""


class Store:
    """The staging database of one synced repository folder (safe to open from several processes)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        path = self.folder / STATE
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.executescript(SCHEMA)
        _add_comment_times(self.conn)
        self.touched: set[int] = set()  # issue numbers changed through this handle (github_index updates them in place)
        self.exported_sha256: str | None = None  # of the issues.jsonl this handle last wrote

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def batch(self) -> Iterator[sqlite3.Connection]:
        """One transaction: a page of items and the cursor after it commit together."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- issues, comments, labels ---------------------------------------------------------------
    def put_issue(self, raw: Mapping[str, Any]) -> None:
        """Insert or replace an issue (or pull request); a duplicate_of Atlas recorded is kept. Nothing
        changes (and the number is not `touched`) when what is stored was updated later than `raw`."""
        number = int(raw["number"])
        row = self.conn.execute("SELECT record, updated_at FROM issues WHERE number = ?", (number,)).fetchone()
        if row and older(raw.get("updated_at"), row[1]):
            return
        self.touched.add(number)
        kept = json.loads(row[0]).get("duplicate_of") if row and raw.get("state_reason") == "duplicate" else None
        record = issue_record(raw, kept)
        self.conn.execute(
            "INSERT OR REPLACE INTO issues(number, gh_id, is_pr, updated_at, record) VALUES (?, ?, ?, ?, ?)",
            (
                number,
                raw.get("id"),
                1 if raw.get("pull_request") else 0,
                raw.get("updated_at"),
                json.dumps(record, separators=(",", ":")),
            ),
        )

    def set_duplicate_of(self, number: int, original: int) -> None:
        self.touched.add(number)
        row = self.conn.execute("SELECT record FROM issues WHERE number = ?", (number,)).fetchone()
        if row:
            record = {**json.loads(row[0]), "duplicate_of": original}
            self.conn.execute(
                "UPDATE issues SET record = ? WHERE number = ?", (json.dumps(record, separators=(",", ":")), number)
            )

    def set_issue_labels(self, number: int, names: list[str]) -> None:
        self.touched.add(number)
        row = self.conn.execute("SELECT record FROM issues WHERE number = ?", (number,)).fetchone()
        if row:
            record = {**json.loads(row[0]), "labels": names}
            self.conn.execute(
                "UPDATE issues SET record = ? WHERE number = ?", (json.dumps(record, separators=(",", ":")), number)
            )

    def delete_issue(self, number: int) -> None:
        """A deleted or transferred issue: gone, with its comments."""
        self.touched.add(number)
        self.conn.execute("DELETE FROM issues WHERE number = ?", (number,))
        self.conn.execute("DELETE FROM comments WHERE issue_number = ?", (number,))

    def numbers(self) -> list[int]:
        """Every stored issue and pull request number (the reconcile compares them with GitHub's)."""
        return [int(r[0]) for r in self.conn.execute("SELECT number FROM issues ORDER BY number")]

    def issue(self, number: int) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT record, is_pr FROM issues WHERE number = ?", (number,)).fetchone()
        return {**json.loads(row[0]), "is_pr": bool(row[1])} if row else None

    def put_comment(self, raw: Mapping[str, Any], issue_number: int | None = None) -> None:
        """Insert or replace a comment; nothing changes (nothing `touched`) when the stored one was updated later."""
        number = issue_number or number_from_url(str(raw.get("issue_url") or ""))
        if number is None:
            return
        row = self.conn.execute("SELECT updated_at FROM comments WHERE id = ?", (int(raw["id"]),)).fetchone()
        if row and older(raw.get("updated_at"), row[0]):
            return
        self.touched.add(number)
        user = raw.get("user") or {}
        record = {"author": user.get("login"), "body": raw.get("body") or "", "created_at": raw.get("created_at")}
        self.conn.execute(
            "INSERT OR REPLACE INTO comments(id, issue_number, created_at, record, updated_at) VALUES (?, ?, ?, ?, ?)",
            (
                int(raw["id"]),
                number,
                raw.get("created_at"),
                json.dumps(record, separators=(",", ":")),
                raw.get("updated_at") or raw.get("created_at"),
            ),
        )

    def delete_comment(self, comment_id: int) -> None:
        row = self.conn.execute("SELECT issue_number FROM comments WHERE id = ?", (comment_id,)).fetchone()
        if row:
            self.touched.add(int(row[0]))
        self.conn.execute("DELETE FROM comments WHERE id = ?", (comment_id,))

    def set_labels(self, names: list[str]) -> None:
        self.conn.execute("DELETE FROM labels")
        self.conn.executemany("INSERT OR IGNORE INTO labels(name) VALUES (?)", [(n,) for n in names])

    def put_label(self, name: str, old: str | None = None) -> None:
        if old:
            self.conn.execute("DELETE FROM labels WHERE name = ?", (old,))
        self.conn.execute("INSERT OR IGNORE INTO labels(name) VALUES (?)", (name,))

    def delete_label(self, name: str) -> None:
        self.conn.execute("DELETE FROM labels WHERE name = ?", (name,))

    def labels(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM labels ORDER BY name")]

    def counts(self) -> dict[str, int]:
        def one(sql: str) -> int:
            return int(self.conn.execute(sql).fetchone()[0])

        return {
            "issues": one("SELECT COUNT(*) FROM issues WHERE is_pr = 0"),
            "pull_requests": one("SELECT COUNT(*) FROM issues WHERE is_pr = 1"),
            "comments": one("SELECT COUNT(*) FROM comments"),
            "labels": one("SELECT COUNT(*) FROM labels"),
            "open": one("SELECT COUNT(*) FROM issues WHERE json_extract(record, '$.state') = 'open'"),
        }

    # -- docs, etags, cursor, meta -------------------------------------------------------------
    def docs(self) -> dict[str, tuple[str, str]]:
        """path -> (blob sha, doc id) of every doc written so far."""
        return {r[0]: (r[1], r[2]) for r in self.conn.execute("SELECT path, sha, doc_id FROM docs")}

    def put_doc(self, path: str, sha: str, doc_id: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO docs(path, sha, doc_id) VALUES (?, ?, ?)", (path, sha, doc_id))

    def delete_doc(self, path: str) -> None:
        self.conn.execute("DELETE FROM docs WHERE path = ?", (path,))

    def etag(self, url: str) -> str | None:
        row = self.conn.execute("SELECT etag FROM etags WHERE url = ?", (url,)).fetchone()
        return row[0] if row else None

    def put_etag(self, url: str, etag: str | None) -> None:
        if etag:
            self.conn.execute("INSERT OR REPLACE INTO etags(url, etag) VALUES (?, ?)", (url, etag))

    def get(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: Any) -> None:
        if value is None:
            self.conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value)))

    # -- the folder the tools read (datasets/github/export.py) ---------------------------------------
    def exported(self, number: int) -> dict[str, Any] | None:
        """One issue exactly as `export` writes it (with its comments); None for a pull request or a gone issue."""
        return exports.exported(self.conn, number)

    def export_pulls(self) -> Path:
        """The pull requests as knowledge/pulls.jsonl (issue 27)."""
        return exports.write_pulls(self.folder, self.conn)

    def export(self) -> Path:
        """Stream every issue (not pull requests) with its comments into issues/issues.jsonl, atomically."""
        with exporting(self.folder):
            return self.export_locked()

    def export_locked(self) -> Path:
        """`export` for a caller already holding `exporting(folder)`; `exported_sha256` is then what it wrote."""
        target, self.exported_sha256 = exports.write_issues(self.folder, self.conn)
        return target


def _add_comment_times(conn: sqlite3.Connection) -> None:
    """A store made before comments kept `updated_at` gains the column (empty: the next payload applies)."""
    if any(column[1] == "updated_at" for column in conn.execute("PRAGMA table_info(comments)")):
        return
    try:
        conn.execute("ALTER TABLE comments ADD COLUMN updated_at TEXT")
    except sqlite3.OperationalError:  # another process added it first
        if not any(column[1] == "updated_at" for column in conn.execute("PRAGMA table_info(comments)")):
            raise
