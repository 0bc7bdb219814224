"""The demo tracker's writes: an append-only journal beside the derived database, replayed into it.

Why a journal: `issues/index.db` is derived from `issues/issues.jsonl` and rebuilt (a fresh file
renamed over the old one) whenever that source changes, so a write stored only in index.db would be
silently dropped by the next rebuild. Every write (labels added, a comment, a close, a new issue) is therefore
appended first to `issues/writes.db`, the durable record, and then applied in place to index.db,
whose `meta.journal_seq` says how far it has caught up. The read tools keep opening index.db
read-only and simply see the applied rows; a rebuild replays the whole journal into the new file
before renaming it. Writers and rebuilds serialize on one lock file, so no write can fall between a
rebuild's replay and its rename.

Applying an entry updates the relational tables and the issue's row in the contentless FTS index
(deleted with the text it was indexed with, reinserted with the new text), so searches see comments
and labels added through the tracker.
"""

from __future__ import annotations

import fcntl
import json
import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from datasets import derived
from datasets.fts_text import index_text

log = logging.getLogger("atlas.tracker")

JOURNAL = Path("issues") / "writes.db"
LOCK = Path("issues") / ".writes.lock"
SEQ_KEY = "journal_seq"
SYNC_TIMEOUT_SECONDS = 10.0  # how long applying waits for index.db's write lock before leaving it to the next sync
Kind = Literal["add_labels", "comment", "close", "create", "reopen", "remove_labels"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS writes(
    seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, issue_id INTEGER NOT NULL,
    data TEXT NOT NULL, author TEXT, key TEXT, at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS writes_by_key ON writes(key);
"""


@dataclass(frozen=True)
class Entry:
    """One write as journaled: what it did to which issue, who did it and under which request key."""

    seq: int
    kind: Kind
    issue_id: int
    data: dict[str, Any]
    author: str | None
    key: str | None
    at: str


def journal_path(data_dir: Path, home: Path | None = None) -> Path:
    """The journal of a data folder's tracker writes, beside its index.db (datasets/derived.py)."""
    return derived.root(data_dir, home) / JOURNAL


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Serialize journal writers and database rebuilds of one `issues/` folder (across processes)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK.name, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def append(
    journal: Path, kind: Kind, issue_id: int, data: dict[str, Any], *, author: str | None, key: str | None
) -> int:
    """Durably record one write (call under `locked`); returns its sequence number."""
    conn = _open_journal(journal)
    try:
        with conn:
            cur = conn.execute(
                "INSERT INTO writes(kind, issue_id, data, author, key, at) VALUES (?, ?, ?, ?, ?, ?)",
                (kind, issue_id, json.dumps(data), author, key, now_iso()),
            )
        return int(cur.lastrowid or 0)
    finally:
        conn.close()


def entries(journal: Path, after: int = 0) -> list[Entry]:
    """Journaled writes with a sequence number above `after`, oldest first."""
    if not journal.is_file():
        return []
    conn = _open_journal(journal)
    try:
        rows = conn.execute(
            "SELECT seq, kind, issue_id, data, author, key, at FROM writes WHERE seq > ? ORDER BY seq", (after,)
        ).fetchall()
    finally:
        conn.close()
    return [Entry(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6]) for r in rows]


def find(journal: Path, key: str) -> Entry | None:
    """The first write journaled under request key `key`, if any: the durable record that it happened."""
    if not key or not journal.is_file():
        return None
    conn = _open_journal(journal)
    try:
        r = conn.execute(
            "SELECT seq, kind, issue_id, data, author, key, at FROM writes WHERE key = ? ORDER BY seq LIMIT 1", (key,)
        ).fetchone()
    finally:
        conn.close()
    return Entry(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6]) if r else None


def sync(db: Path, journal: Path) -> int:
    """Apply the journal entries `db` has not seen yet (call under `locked`); returns how many."""
    if not journal.is_file() or not db.is_file():
        return 0
    conn = sqlite3.connect(db, timeout=SYNC_TIMEOUT_SECONDS, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (SEQ_KEY,)).fetchone()
            todo = entries(journal, int(row[0]) if row else 0)
            for entry in todo:
                apply(conn, entry)
            if todo:
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (SEQ_KEY, str(todo[-1].seq)))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return len(todo)
    finally:
        conn.close()


def apply(conn: sqlite3.Connection, entry: Entry) -> None:
    """One entry into an open tracker database: relational rows first, then the issue's FTS row."""
    if entry.kind == "create":
        _create(conn, entry)
        return
    if conn.execute("SELECT 1 FROM issues WHERE id = ?", (entry.issue_id,)).fetchone() is None:
        log.warning("journal entry %s: issue #%s is not in the database; skipped", entry.seq, entry.issue_id)
        return
    before = indexed_text(conn, entry.issue_id)
    if entry.kind == "add_labels":
        for name in entry.data.get("labels", []):
            label_id = _label_id(conn, name)
            conn.execute(
                "INSERT OR IGNORE INTO issue_labels(issue_id, label_id) VALUES (?, ?)", (entry.issue_id, label_id)
            )
    elif entry.kind == "comment":
        position = conn.execute(
            "SELECT COALESCE(MAX(position) + 1, 0) FROM comments WHERE issue_id = ?", (entry.issue_id,)
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO comments(issue_id, position, author, body, created_at) VALUES (?, ?, ?, ?, ?)",
            (entry.issue_id, position, entry.author, entry.data.get("body", ""), entry.at),
        )
        conn.execute("UPDATE issues SET comment_count = comment_count + 1 WHERE id = ?", (entry.issue_id,))
    elif entry.kind == "close":
        conn.execute(
            "UPDATE issues SET state = 'closed', closed_at = ?, duplicate_of = COALESCE(?, duplicate_of) WHERE id = ?",
            (entry.at, entry.data.get("duplicate_of"), entry.issue_id),
        )
    elif entry.kind == "reopen":
        conn.execute(
            "UPDATE issues SET state = 'open', closed_at = NULL, duplicate_of = NULL WHERE id = ?", (entry.issue_id,)
        )
    elif entry.kind == "remove_labels":
        for name in entry.data.get("labels", []):
            conn.execute(
                "DELETE FROM issue_labels WHERE issue_id = ? AND label_id IN (SELECT id FROM labels WHERE name = ?)",
                (entry.issue_id, name),
            )
    else:
        log.warning("journal entry %s: unknown kind %r; skipped", entry.seq, entry.kind)
        return
    after = indexed_text(conn, entry.issue_id)
    conn.execute(
        "INSERT INTO issues_fts(issues_fts, rowid, title, labels, body, comments) VALUES ('delete', ?, ?, ?, ?, ?)",
        (entry.issue_id, *before),
    )
    conn.execute(
        "INSERT INTO issues_fts(rowid, title, labels, body, comments) VALUES (?, ?, ?, ?, ?)", (entry.issue_id, *after)
    )


def _create(conn: sqlite3.Connection, entry: Entry) -> None:
    """A new issue filed through the tracker: its row, its labels, its FTS row (once: a replay finds it there)."""
    if conn.execute("SELECT 1 FROM issues WHERE id = ?", (entry.issue_id,)).fetchone() is not None:
        log.warning("journal entry %s: issue #%s exists already; skipped", entry.seq, entry.issue_id)
        return
    conn.execute(
        "INSERT INTO issues(id, title, body, state, author, created_at, closed_at, duplicate_of, comment_count) "
        "VALUES (?, ?, ?, 'open', ?, ?, NULL, NULL, 0)",
        (entry.issue_id, str(entry.data.get("title") or ""), str(entry.data.get("body") or ""), entry.author, entry.at),
    )
    for name in entry.data.get("labels", []):
        conn.execute(
            "INSERT OR IGNORE INTO issue_labels(issue_id, label_id) VALUES (?, ?)",
            (entry.issue_id, _label_id(conn, name)),
        )
    conn.execute(
        "INSERT INTO issues_fts(rowid, title, labels, body, comments) VALUES (?, ?, ?, ?, ?)",
        (entry.issue_id, *indexed_text(conn, entry.issue_id)),
    )


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def indexed_text(conn: sqlite3.Connection, issue_id: int) -> tuple[str, str, str, str]:
    """The FTS columns exactly as the builder indexes them (tracker_db.index_text over the same parts)."""
    title, body = conn.execute("SELECT title, body FROM issues WHERE id = ?", (issue_id,)).fetchone()
    labels = [
        r[0]
        for r in conn.execute(
            "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = "
            "il.label_id WHERE il.issue_id = ? ORDER BY l.id",
            (issue_id,),
        )
    ]
    comments = [
        r[0] for r in conn.execute("SELECT body FROM comments WHERE issue_id = ? ORDER BY position", (issue_id,))
    ]
    return index_text(title), index_text(" ".join(labels)), index_text(body or ""), index_text("\n".join(comments))


def _label_id(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute("SELECT id FROM labels WHERE name = ?", (name,)).fetchone()
    if row:
        return int(row[0])
    # Validated against the tracker when requested; a rebuild from a source that dropped it re-creates it.
    kind, _, value = name.partition(":") if ":" in name else ("", "", name)
    return int(
        conn.execute("INSERT INTO labels(name, kind, value) VALUES (?, ?, ?)", (name, kind or None, value)).lastrowid
        or 0
    )


def _open_journal(journal: Path) -> sqlite3.Connection:
    journal.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(journal, timeout=10)
    conn.execute("PRAGMA journal_mode = WAL")  # the journal is only ever opened read-write, by us
    conn.execute("PRAGMA synchronous = FULL")
    conn.executescript(SCHEMA)
    return conn
