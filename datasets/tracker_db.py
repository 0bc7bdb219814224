"""The issue tracker as a derived SQLite database, rebuilt from issues.jsonl when that changes.

`issues/index.db` (any project, not only Orbit; beside the data when Atlas made the folder, else
under ATLAS_HOME: datasets/derived.py) holds issues, comments, labels and an FTS5 index (bm25, title weighted
above labels, body and comments). The source's sha256, size and mtime live in a `meta` table: a
changed mtime or size triggers a hash, a changed hash a rebuild. Rebuilds write a temporary file in
the same folder, replay the journal of tracker writes into it and rename it over the old one (under
the journal's lock), so readers never see a half-built database and two processes racing to rebuild
both leave a complete one. Readers open it read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from atlas.errors import AtlasError
from datasets import derived, export_lock, tracker_journal
from datasets.fts_text import index_text

SCHEMA_VERSION = "7"
SOURCE = Path("issues") / "issues.jsonl"
DB = Path("issues") / "index.db"
# '-', '.' and '_' are token characters, so ORB-1202, 3.1.0 and lease_seconds are single tokens that
# a query finds exactly (not "orb 1202", not 3.1.1). `index_text` hands the tokenizer words only
# ("twice." must index as "twice") and adds each compound's parts, so "dead letter" still finds
# "dead-letter" and "heartbeat seconds" finds heartbeat_seconds.
TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '-._'"
# bm25 column weights, in FTS column order: title, labels, body, comments. Queries call
# bm25(issues_fts, *BM25_WEIGHTS) directly: measurably faster than ORDER BY rank with this config.
BM25_WEIGHTS = (10.0, 4.0, 3.0, 0.5)
MAX_ISSUE_ID = 2**63 - 1  # SQLite's INTEGER; a larger number raises OverflowError as a query parameter
RANK = f"bm25({', '.join(map(str, BM25_WEIGHTS))})"

SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE issues(
    id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'closed')), author TEXT,
    created_at TEXT, closed_at TEXT, duplicate_of INTEGER, comment_count INTEGER NOT NULL);
CREATE TABLE comments(
    issue_id INTEGER NOT NULL REFERENCES issues(id), position INTEGER NOT NULL,
    author TEXT, body TEXT NOT NULL, created_at TEXT, PRIMARY KEY (issue_id, position));
CREATE TABLE labels(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT, value TEXT NOT NULL);
CREATE TABLE issue_labels(
    issue_id INTEGER NOT NULL REFERENCES issues(id), label_id INTEGER NOT NULL REFERENCES labels(id),
    PRIMARY KEY (issue_id, label_id));
CREATE INDEX issue_labels_by_label ON issue_labels(label_id);
CREATE INDEX issues_by_duplicate ON issues(duplicate_of);
CREATE VIRTUAL TABLE issues_fts USING fts5(
    title, labels, body, comments, content='', tokenize="{TOKENIZER}");
"""


class DatasetError(AtlasError, RuntimeError):
    """The issues source is missing or malformed: names the file and line."""


def db_path(data_dir: Path, home: Path | None = None) -> Path:
    """Where the derived database of a data folder lives (`derived.root`: beside it, or under `home`)."""
    return derived.root(data_dir, home) / DB


def ensure_db(data_dir: Path, home: Path | None = None) -> Path:
    """The database for `data_dir`, built first if missing or stale. Safe under concurrent callers."""
    return _refresh(Path(data_dir), home, force=False)


def build(data_dir: Path, home: Path | None = None) -> Path:
    """Rebuild the database from the JSONL unconditionally (`atlas dataset index`); the source and the
    journal of tracker writes are only read, so the project's data is never touched."""
    return _refresh(Path(data_dir), home, force=True)


def _refresh(data_dir: Path, home: Path | None, *, force: bool) -> Path:
    source, target = data_dir / SOURCE, db_path(data_dir, home)
    if not source.is_file():
        raise DatasetError(f"no issues file at {source}")
    before = source.stat()
    meta = read_meta(target)
    if not force and _fresh(meta, before):
        return target
    if not force and export_lock.wait_for_export(data_dir):  # an export's in-place update may restamp it now
        before, meta = source.stat(), read_meta(target)
        if _fresh(meta, before):
            return target
    raw = source.read_bytes()
    stamp = _stamp(hashlib.sha256(raw).hexdigest(), before, source.stat())
    if (
        not force
        and meta.get("schema_version") == SCHEMA_VERSION
        and meta.get("source_sha256") == stamp["source_sha256"]
    ):
        _update_meta(target, stamp)  # touched but unchanged: remember the new stat, keep the data
        return target
    write_db(target, parse_issues(raw, source), stamp)
    return target


def _fresh(meta: Mapping[str, str], st: os.stat_result) -> bool:
    return (
        meta.get("schema_version") == SCHEMA_VERSION
        and meta.get("source_size") == str(st.st_size)
        and meta.get("source_mtime_ns") == str(st.st_mtime_ns)
    )


def storable_id(number: int) -> bool:
    """Whether an issue number fits SQLite's INTEGER; one that does not cannot be an issue here."""
    return 0 < number <= MAX_ISSUE_ID


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection (`mode=ro` URI): any write through it fails."""
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def read_meta(path: Path) -> dict[str, str]:
    """The meta table of a built database, or {} if it is missing or unreadable."""
    if not Path(path).is_file():
        return {}
    try:
        conn = connect_readonly(path)
        try:
            return {row["key"]: row["value"] for row in conn.execute("SELECT key, value FROM meta")}
        finally:
            conn.close()
    except sqlite3.Error:
        return {}


def parse_issues(raw: bytes, source: Path) -> Iterator[dict[str, Any]]:
    """Issue objects from JSON Lines bytes; a malformed line raises DatasetError with its number.

    Checked here, before SQLite sees them: text that is not UTF-8, an id SQLite cannot hold, and an
    id given twice (which SQLite would report as a bare IntegrityError)."""
    seen: dict[int, int] = {}
    for number, chunk in enumerate(raw.splitlines(), start=1):
        try:
            line = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DatasetError(f"{source}:{number}: not UTF-8 text (byte {exc.start + 1})") from None
        if not line.strip():
            continue
        try:
            issue = json.loads(line)
        except ValueError as exc:
            raise DatasetError(f"{source}:{number}: not JSON ({exc})") from None
        if not isinstance(issue, dict) or type(issue.get("id")) is not int or not isinstance(issue.get("title"), str):
            raise DatasetError(f"{source}:{number}: an issue needs an integer id and a title")
        if not storable_id(issue["id"]):
            raise DatasetError(f"{source}:{number}: issue id {issue['id']} is not between 1 and {MAX_ISSUE_ID}")
        if issue["id"] in seen:
            raise DatasetError(f"{source}:{number}: issue id {issue['id']} is already used on line {seen[issue['id']]}")
        seen[issue["id"]] = number
        yield issue


def write_db(target: Path, issues: Iterable[Mapping[str, Any]], meta: Mapping[str, str]) -> None:
    """Build a complete database in a temporary file beside `target`, replay the tracker journal
    into it, then rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("PRAGMA journal_mode = OFF")  # a crash leaves only a temp file to discard
            conn.execute("PRAGMA synchronous = OFF")
            conn.executescript(SCHEMA)
            with conn:
                count = _insert(conn, issues)
                conn.execute("INSERT INTO issues_fts(issues_fts, rank) VALUES ('rank', ?)", (RANK,))
                conn.executemany(
                    "INSERT INTO meta(key, value) VALUES (?, ?)",
                    [*meta.items(), ("schema_version", SCHEMA_VERSION), ("issue_count", str(count))],
                )
            conn.execute("INSERT INTO issues_fts(issues_fts) VALUES ('optimize')")
            conn.commit()
        finally:
            conn.close()
        # Writes made through the tracker live in a journal beside the database; replay them into the
        # new file under the writers' lock, so a rebuild never drops them (datasets/tracker_journal.py).
        with tracker_journal.locked(target.parent):
            tracker_journal.sync(tmp, target.parent / tracker_journal.JOURNAL.name)
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _insert(conn: sqlite3.Connection, issues: Iterable[Mapping[str, Any]]) -> int:
    label_ids: dict[str, int] = {}
    count = 0
    for issue in issues:
        listed = [c for c in issue.get("comments") or [] if isinstance(c, Mapping)]
        # One comment per position (a repeated position keeps the last), in position order.
        comments = sorted({c.get("position", i): c for i, c in enumerate(listed)}.items(), key=lambda pair: pair[0])
        names = list(dict.fromkeys(n for n in issue.get("labels") or [] if isinstance(n, str)))
        conn.execute(
            "INSERT INTO issues(id, title, body, state, author, created_at, closed_at, duplicate_of, comment_count)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                issue["id"],
                issue["title"],
                issue.get("body") or "",
                _state(issue.get("state")),
                issue.get("author"),
                issue.get("created_at"),
                issue.get("closed_at"),
                issue.get("duplicate_of"),
                len(comments),
            ),
        )
        conn.executemany(
            "INSERT INTO comments(issue_id, position, author, body, created_at) VALUES (?, ?, ?, ?, ?)",
            [(issue["id"], pos, c.get("author"), c.get("body") or "", c.get("created_at")) for pos, c in comments],
        )
        for name in names:
            if name not in label_ids:
                kind, _, value = name.partition(":") if ":" in name else ("", "", name)
                cur = conn.execute(
                    "INSERT INTO labels(name, kind, value) VALUES (?, ?, ?)", (name, kind or None, value)
                )
                label_ids[name] = int(cur.lastrowid or 0)
        conn.executemany(
            "INSERT INTO issue_labels(issue_id, label_id) VALUES (?, ?)",
            [(issue["id"], label_ids[name]) for name in names],
        )
        conn.execute(
            "INSERT INTO issues_fts(rowid, title, labels, body, comments) VALUES (?, ?, ?, ?, ?)",
            (
                issue["id"],
                *fts_columns(
                    issue["title"],
                    sorted(names, key=label_ids.__getitem__),
                    issue.get("body") or "",
                    [c.get("body") or "" for _, c in comments],
                ),
            ),
        )
        count += 1
    return count


def fts_columns(title: str, labels: list[str], body: str, comments: list[str]) -> tuple[str, str, str, str]:
    """The FTS row of an issue (title, labels, body, comments) exactly as the builder indexes it.

    Labels in label-id order and comments in position order: anyone deleting a row from the
    contentless index (the tracker journal) must pass the same text, so it must be reproducible.
    """
    return (index_text(title), index_text(" ".join(labels)), index_text(body), index_text("\n".join(comments)))


def _state(value: Any) -> str:
    return "open" if value == "open" else "closed"


def _stamp(sha: str, before: os.stat_result, after: os.stat_result) -> dict[str, str]:
    # If the file changed while we read it, do not trust the stat: the next call re-hashes.
    steady = (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns)
    return {
        "source_sha256": sha,
        "source_size": str(after.st_size) if steady else "-1",
        "source_mtime_ns": str(after.st_mtime_ns) if steady else "-1",
    }


def _update_meta(target: Path, stamp: Mapping[str, str]) -> None:
    try:
        conn = sqlite3.connect(target, timeout=5)
        try:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(stamp.items()))
        finally:
            conn.close()
    except sqlite3.Error:
        pass  # a read-only folder or a concurrent rename: the next call simply re-hashes
