"""One event's issues updated in the derived index in place, instead of rebuilding it.

A webhook or a tracker write changes one issue; rebuilding `issues/index.db` from a 10,000-issue
issues.jsonl for it takes about half a second. When the index was current for the issues.jsonl
just replaced, each touched issue's rows (issue, comments, labels and its row in the contentless
FTS index, deleted with the text it was indexed with) are replaced in one transaction, and the
index's stamp is moved to the new issues.jsonl, so `ensure_db` finds it current. Anything unusual
(no index yet, a schema change, a stale stamp) leaves it to the full rebuild. Runs under
`exporting` (datasets/github/export.py), so no other export interleaves. `apply` is the one way in: a change to
the store, then the index refreshed.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from datasets import tracker_db
from datasets.github.export import exporting
from datasets.github.store import Store
from datasets.tracker_journal import indexed_text

log = logging.getLogger("atlas.github.index")


def is_current(folder: Path) -> bool:
    """The index exists, has today's schema and was built from the issues.jsonl now on disk."""
    source = Path(folder) / tracker_db.SOURCE
    if not source.is_file():
        return False
    return tracker_db._fresh(tracker_db.read_meta(tracker_db.db_path(folder)), source.stat())


def update_in_place(folder: Path, store: Store, numbers: list[int]) -> bool:
    """Replace the touched issues in the index and restamp it; False when the caller must rebuild."""
    db, source = tracker_db.db_path(folder), Path(folder) / tracker_db.SOURCE
    try:
        conn = sqlite3.connect(db, timeout=10, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for number in numbers:
                _replace(conn, number, store.exported(number))
            before = source.stat()
            digest = store.exported_sha256 or hashlib.sha256(source.read_bytes()).hexdigest()
            stamp = tracker_db._stamp(digest, before, source.stat())
            conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(stamp.items()))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return True
    except sqlite3.Error:
        log.warning("in-place index update of %s failed; rebuilding instead", folder, exc_info=True)
        return False
    finally:
        conn.close()


def _replace(conn: sqlite3.Connection, number: int, issue: dict[str, Any] | None) -> None:
    if conn.execute("SELECT 1 FROM issues WHERE id = ?", (number,)).fetchone() is not None:
        old = indexed_text(conn, number)
        conn.execute(
            "INSERT INTO issues_fts(issues_fts, rowid, title, labels, body, comments) VALUES ('delete', ?, ?, ?, ?, ?)",
            (number, *old),
        )
        conn.execute("DELETE FROM issue_labels WHERE issue_id = ?", (number,))
        conn.execute("DELETE FROM comments WHERE issue_id = ?", (number,))
        conn.execute("DELETE FROM issues WHERE id = ?", (number,))
    if issue is None:
        return
    comments = issue.get("comments") or []
    conn.execute(
        "INSERT INTO issues(id, title, body, state, author, created_at, closed_at, duplicate_of, comment_count)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            number,
            issue["title"],
            issue.get("body") or "",
            "open" if issue.get("state") == "open" else "closed",
            issue.get("author"),
            issue.get("created_at"),
            issue.get("closed_at"),
            issue.get("duplicate_of"),
            len(comments),
        ),
    )
    conn.executemany(
        "INSERT INTO comments(issue_id, position, author, body, created_at) VALUES (?, ?, ?, ?, ?)",
        [(number, i, c.get("author"), c.get("body") or "", c.get("created_at")) for i, c in enumerate(comments)],
    )
    ids: dict[str, int] = {}
    for name in dict.fromkeys(n for n in issue.get("labels") or [] if isinstance(n, str)):
        row = conn.execute("SELECT id FROM labels WHERE name = ?", (name,)).fetchone()
        if row is None:
            kind, _, value = name.partition(":") if ":" in name else ("", "", name)
            row = (
                conn.execute(
                    "INSERT INTO labels(name, kind, value) VALUES (?, ?, ?)", (name, kind or None, value)
                ).lastrowid,
            )
        ids[name] = int(row[0])
        conn.execute("INSERT INTO issue_labels(issue_id, label_id) VALUES (?, ?)", (number, ids[name]))
    conn.execute(
        "INSERT INTO issues_fts(rowid, title, labels, body, comments) VALUES (?, ?, ?, ?, ?)",
        (
            number,
            *tracker_db.fts_columns(
                issue["title"],
                sorted(ids, key=ids.__getitem__),
                issue.get("body") or "",
                [c.get("body") or "" for c in comments],
            ),
        ),
    )


def apply(folder: Path, change: Callable[[Store], None], *, build_index: bool = True) -> None:
    """Apply one change (a webhook event, a write's response) and refresh what the tools read, at once:
    the changed issues are updated in the index in place when it is current, else it is rebuilt."""
    store = Store(folder)
    try:
        with exporting(folder):
            current = build_index and is_current(folder)
            with store.batch():
                change(store)
            store.export_locked()
            if current and update_in_place(folder, store, sorted(store.touched)):
                return
    finally:
        store.close()
    if build_index:
        tracker_db.ensure_db(folder)
