"""The knowledge index: pull requests, releases, discussions and code of one data folder, in SQLite FTS5.

`issues/knowledge.db` lives beside the issues' index (datasets/derived.py) and uses its tokenizer
(porter stemming; '-', '.', '_' inside words, each compound also indexed by its parts), so the same
query finds ORB-1202 in an issue, a release note or a line of code. Code adds camelCase parts
(`renewLease` is also `renew lease`) and a symbol table: the names each file defines.

It is brought up to date when a source's size or mtime changes (a sync rewrites knowledge/repo.json last,
with the new commit, after the code tree), in place and incrementally (datasets/knowledge_rows.py): a code
file is re-indexed only when its blob sha changed and leaves with its symbols when it is gone; a pull
request, release or discussion is replaced when its content changed and deleted when its source no longer
has it. A code file is not even read when its stat (size, mtime, ctime, inode, kept per file) is the one
stored with it and strictly older than the last update's start (`files_stat_ns` in meta, see `scan_start`):
git's racy-timestamp rule, since a file rewritten in the tick its stat was taken in keeps that stat. The stat,
not the sync's record of blob shas, because it holds for hand-made folders and for files edited after a sync.
Each update is one transaction on a WAL database, so a reader (tools/knowledge_store.py, `mode=ro`) sees the
old index or the new one, never half of one, and is not blocked; a tool call reads in one snapshot of it
(tools/readonly_db.py), so its several statements agree. A crash leaves the old index and its old `sources`
stamp, so the next `ensure` does the work again. Two processes updating at once take
turns (a lock file beside the index); the second finds the stamp current and does nothing.

The index is built whole instead when there is none or the file is not a readable index (into a temporary
file renamed over it), and, in place in one transaction, when its SCHEMA_VERSION differs. A rebuild over
a WAL database is never a rename: a reader's `-wal` file would then be read against the new file.
What a row is indexed by is recomputed from the stored rows to delete it (datasets/knowledge_rows.py), so
a change to it (index_text, code_text, the columns) needs a new SCHEMA_VERSION.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from datasets import derived
from datasets.knowledge_files import CODE, DISCUSSIONS, PULLS, RELEASES, REPO, file_stat
from datasets.knowledge_rows import (
    all_code,
    code_text,
    content_hash,
    insert_file,
    insert_item,
    records,
    sync_code,
    sync_items,
)
from datasets.tracker_db import TOKENIZER

__all__ = [
    "DB",
    "SCHEMA_VERSION",
    "code_text",
    "db_path",
    "ensure",
    "fingerprint",
]  # code_text: tools/knowledge_store.py

DB = Path("issues") / "knowledge.db"
LOCK = ".knowledge.lock"
SCHEMA_VERSION = "5"
BUSY_SECONDS = 600.0  # turning an older rollback-journal index to WAL waits for its readers, not fails on them
RACY_MARGIN_NS = (
    2_000_000_000  # timestamps as coarse as FAT's 2 s, and a code tree on another filesystem than the index
)
_BROKEN = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)

SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items(
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('pull_request', 'release', 'discussion')),
    number INTEGER, tag TEXT, title TEXT NOT NULL, body TEXT NOT NULL, author TEXT, state TEXT, date TEXT,
    url TEXT, fixes TEXT NOT NULL, mentions TEXT NOT NULL, extra TEXT NOT NULL, source_hash TEXT NOT NULL);
CREATE VIRTUAL TABLE items_fts USING fts5(title, body, files, content='', tokenize="{TOKENIZER}");
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, sha TEXT NOT NULL, text TEXT NOT NULL,
    line_count INTEGER NOT NULL, stat TEXT NOT NULL);
CREATE TABLE symbols(name TEXT NOT NULL, lower TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id), line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX symbols_by_name ON symbols(lower);
CREATE INDEX symbols_by_file ON symbols(file_id, line);
CREATE TABLE chunks(id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL REFERENCES files(id),
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX chunks_by_file ON chunks(file_id);
CREATE VIRTUAL TABLE chunks_fts USING fts5(path, symbols, text, content='', tokenize="{TOKENIZER}");
"""


def db_path(data_dir: Path, home: Path | None = None) -> Path:
    """Where the knowledge index of `data_dir` lives (`derived.root`: beside it, or under `home`)."""
    return derived.root(data_dir, home) / DB


def ensure(data_dir: Path, home: Path | None = None) -> Path:
    """The index of `data_dir`, brought up to date first when a source changed since it was last updated."""
    target = db_path(data_dir, home)
    stamp = fingerprint(Path(data_dir))
    if _built_from(target) != stamp:
        refresh(Path(data_dir), target, stamp)
    return target


def fingerprint(data_dir: Path | str) -> str:
    """(size, mtime) of each knowledge file: what decides an update (plain os calls: open_corpus runs it per call)."""
    parts = [SCHEMA_VERSION]
    for path in (REPO, PULLS, RELEASES, DISCUSSIONS):
        try:
            st = os.stat(os.path.join(data_dir, path))
            parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}:-")
    return "|".join(parts)


def _built_from(target: Path) -> str | None:
    try:
        conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'sources'").fetchone()
        return row[0] if row else None
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def refresh(data_dir: Path, target: Path, stamp: str) -> None:
    """Update `target` in place, in one transaction; build it whole when there is none or it is not a database.
    One process at a time (an flock on LOCK beside it): a rename never lands under another's update."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_name(LOCK), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
        if _built_from(target) == stamp:
            return  # another process did it while this one waited
        if target.is_file():
            try:
                update(data_dir, target, stamp)
                return
            except sqlite3.DatabaseError as exc:
                if getattr(exc, "sqlite_errorcode", None) not in _BROKEN:
                    raise
        build(data_dir, target, stamp)


def update(data_dir: Path, target: Path, stamp: str) -> None:
    """One write transaction: nothing when another process already did it, the whole index again when its
    schema is another version, else only the rows that changed. An exception rolls all of it back."""
    conn = sqlite3.connect(target, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")  # readers read the last commit while this one writes
        conn.execute("BEGIN IMMEDIATE")
        try:
            meta = _meta(conn)
            if meta.get("sources") == stamp:
                conn.execute("ROLLBACK")
                return
            started = scan_start(target)
            if meta.get("schema") != SCHEMA_VERSION:
                _drop_all(conn)
                _create(conn)
                _fill(conn, data_dir)
            else:
                sync_items(conn, data_dir)
                sync_code(conn, data_dir / CODE, int(meta.get("files_stat_ns") or 0))
            _put_meta(conn, data_dir, stamp, started)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):  # a corrupt file may refuse; closing rolls back anyway
                    conn.execute("ROLLBACK")
            raise
    finally:
        conn.close()


def build(data_dir: Path, target: Path, stamp: str) -> None:
    """Write the whole index to a temporary file and rename it over `target` (missing or not a database):
    readers never see half of one. A `-wal` or `-shm` left beside the old name would be read against the new
    file, so they go first."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("BEGIN")
            started = scan_start(target)
            _create(conn)
            _fill(conn, data_dir)
            _put_meta(conn, data_dir, stamp, started)
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode = WAL")  # kept in the file: its updates are in place
        finally:
            conn.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    except sqlite3.OperationalError:  # no meta table: not an index of ours, rebuilt whole
        return {}


def _drop_all(conn: sqlite3.Connection) -> None:
    """Every table of an older schema (virtual tables first: they drop their own shadow tables)."""
    listed = (
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql {} 'CREATE VIRTUAL%'"
    )
    for how in ("LIKE", "NOT LIKE"):
        for (name,) in conn.execute(listed.format(how)).fetchall():
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')


def _create(conn: sqlite3.Connection) -> None:
    for statement in SCHEMA.split(";"):  # not executescript: it would commit the transaction
        if statement.strip():
            conn.execute(statement)


def _fill(conn: sqlite3.Connection, data_dir: Path) -> None:
    for kind, row in records(data_dir):
        insert_item(conn, kind, row, content_hash(row))
    for item, found in all_code(data_dir / CODE):
        insert_file(conn, item, found)


def scan_start(target: Path) -> int:
    """When this update began, before any code file is read, on the filesystem's clock (the lock file beside
    the index touched and stat'ed), less RACY_MARGIN_NS. A file whose stat is not strictly older is read again by
    the next update: it may have changed within the tick its stat was taken in."""
    lock = target.with_name(LOCK)
    now = time.time_ns()
    try:
        lock.touch()
        found = file_stat(str(lock))
    except OSError:
        found = None
    return min(now, found.mtime_ns if found else now) - RACY_MARGIN_NS


def _put_meta(conn: sqlite3.Connection, data_dir: Path, stamp: str, started: int) -> None:
    repo = _repo(data_dir)
    meta = {
        "sources": stamp,
        "schema": SCHEMA_VERSION,
        "url": str(repo.get("url") or ""),
        "commit": str(repo.get("commit") or ""),
        "files_stat_ns": str(started),
    }
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())


def _repo(data_dir: Path) -> dict[str, Any]:
    try:
        value = json.loads((data_dir / REPO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
