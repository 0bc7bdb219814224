"""The knowledge index: pull requests, releases, discussions and code of one data folder, in SQLite FTS5.

`issues/knowledge.db` lives beside the issues' index (datasets/derived.py) and uses its tokenizer
(porter stemming; '-', '.', '_' inside words, each compound also indexed by its parts), so the same
query finds ORB-1202 in an issue, a release note or a line of code. Code adds camelCase parts
(`renewLease` is also `renew lease`) and a symbol table: the names each file defines. It is rebuilt
whole, into a temporary file renamed over the old one, when a source's size or mtime changes (a
sync rewrites knowledge/repo.json last, with the new commit, after the code tree).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from datasets import derived
from datasets.code_symbols import symbols
from datasets.fts_text import index_text
from datasets.knowledge_files import CODE, DISCUSSIONS, PULLS, RELEASES, REPO, code_files, read_jsonl
from datasets.tracker_db import TOKENIZER

DB = Path("issues") / "knowledge.db"
SCHEMA_VERSION = "3"
CHUNK_LINES = 30
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_FIXES = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#(\d+)", re.IGNORECASE)
_MENTION = re.compile(r"#(\d+)\b")

SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items(
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('pull_request', 'release', 'discussion')),
    number INTEGER, tag TEXT, title TEXT NOT NULL, body TEXT NOT NULL, author TEXT, state TEXT, date TEXT,
    url TEXT, fixes TEXT NOT NULL, mentions TEXT NOT NULL, extra TEXT NOT NULL);
CREATE VIRTUAL TABLE items_fts USING fts5(title, body, files, content='', tokenize="{TOKENIZER}");
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, sha TEXT NOT NULL, text TEXT NOT NULL,
    line_count INTEGER NOT NULL);
CREATE TABLE symbols(name TEXT NOT NULL, lower TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id), line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX symbols_by_name ON symbols(lower);
CREATE TABLE chunks(id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL REFERENCES files(id),
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE VIRTUAL TABLE chunks_fts USING fts5(path, symbols, text, content='', tokenize="{TOKENIZER}");
"""


def code_text(text: str) -> str:
    """`index_text` plus the camelCase parts of each word, for code."""
    words = index_text(text)
    extra = [" ".join(_CAMEL.findall(w)) for w in words.split() if any(c.isupper() for c in w[1:]) and w[:1].isalpha()]
    return words + (" " + " ".join(extra) if extra else "")


def path_text(paths: list[str]) -> str:
    """Changed file paths as index words: each path whole (`orbit/config.py`) and by its parts (`orbit`,
    `config.py`, `config`), camelCase split as in code, so a question naming a file or its folder finds them."""
    return " ".join(code_text(p) for p in paths)


def db_path(data_dir: Path, home: Path | None = None) -> Path:
    """Where the knowledge index of `data_dir` lives (`derived.root`: beside it, or under `home`)."""
    return derived.root(data_dir, home) / DB


def ensure(data_dir: Path, home: Path | None = None) -> Path:
    """The index of `data_dir`, rebuilt first when a source changed since it was built."""
    target = db_path(data_dir, home)
    stamp = fingerprint(Path(data_dir))
    if _built_from(target) != stamp:
        build(Path(data_dir), target, stamp)
    return target


def fingerprint(data_dir: Path | str) -> str:
    """(size, mtime) of each knowledge file: what decides a rebuild (plain os calls: open_corpus runs it per tool call)."""
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


def build(data_dir: Path, target: Path, stamp: str) -> None:
    """Write the whole index to a temporary file and rename it over `target`: readers never see half of one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp)
        with conn:
            conn.executescript(SCHEMA)
            repo = _repo(data_dir)
            meta = {"sources": stamp, "url": str(repo.get("url") or ""), "commit": str(repo.get("commit") or "")}
            conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            _insert_items(conn, data_dir)
            _insert_code(conn, data_dir / CODE)
        conn.close()
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _repo(data_dir: Path) -> dict[str, Any]:
    try:
        value = json.loads((data_dir / REPO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _insert_items(conn: sqlite3.Connection, data_dir: Path) -> None:
    for row in read_jsonl(data_dir / PULLS):
        body = str(row.get("body") or "")
        fixes = sorted({int(n) for n in row.get("closes") or []} | {int(n) for n in _FIXES.findall(body)})
        extra = {"merged_at": row.get("merged_at"), "files": row.get("files") or []}
        _item(conn, "pull_request", row.get("number"), None, row, body, row.get("merged_at") or row.get("created_at"), fixes, extra)
    for row in read_jsonl(data_dir / RELEASES):
        body = str(row.get("body") or "")
        _item(conn, "release", None, row.get("tag"), {**row, "title": row.get("name") or row.get("tag")}, body,
              row.get("published_at"), [], {})
    for row in read_jsonl(data_dir / DISCUSSIONS):
        answer = row.get("answer") if isinstance(row.get("answer"), dict) else None
        replies = [r for r in row.get("replies") or [] if isinstance(r, dict)]
        parts = [str(row.get("body") or "")] + ([str(answer.get("body") or "")] if answer else []) + [str(r.get("body") or "") for r in replies]
        extra = {"category": row.get("category"), "answer": answer, "replies": replies}
        state = "answered" if answer else "unanswered"
        _item(conn, "discussion", row.get("number"), None, {**row, "state": state}, "\n\n".join(parts), row.get("created_at"), [], extra)


def _item(conn: sqlite3.Connection, kind: str, number: Any, tag: Any, row: dict[str, Any], body: str, date: Any,
          fixes: list[int], extra: dict[str, Any]) -> None:
    title = str(row.get("title") or "")
    mentions = sorted({int(n) for n in _MENTION.findall(body)})
    cur = conn.execute(
        "INSERT INTO items(kind, number, tag, title, body, author, state, date, url, fixes, mentions, extra)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (kind, number, tag, title, str(row.get("body") or ""), row.get("author"), row.get("state"), date, row.get("url"),
         json.dumps(fixes), json.dumps(mentions), json.dumps(extra)))
    paths = [str(p) for p in extra.get("files") or []] if kind == "pull_request" else []
    conn.execute("INSERT INTO items_fts(rowid, title, body, files) VALUES (?, ?, ?, ?)",
                 (cur.lastrowid, index_text(f"{tag or ''} {title}"), index_text(body), path_text(paths)))


def _insert_code(conn: sqlite3.Connection, root: Path) -> None:
    for item in code_files(root):
        lines = item.text.splitlines()
        cur = conn.execute("INSERT INTO files(path, sha, text, line_count) VALUES (?, ?, ?, ?)",
                           (item.path, item.sha, item.text, len(lines)))
        file_id = cur.lastrowid
        defined = symbols(item.text)
        conn.executemany("INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [(s.name, s.name.lower(), s.qualname, s.kind, file_id, s.line, s.end) for s in defined])
        path_words = code_text(item.path.replace("/", " "))
        for start, end in chunk_ranges(len(lines), [s.line for s in defined]):
            names = " ".join(s.qualname for s in defined if start <= s.line <= end)
            cur = conn.execute("INSERT INTO chunks(file_id, start_line, end_line) VALUES (?, ?, ?)", (file_id, start, end))
            conn.execute("INSERT INTO chunks_fts(rowid, path, symbols, text) VALUES (?, ?, ?, ?)",
                         (cur.lastrowid, path_words, code_text(names), code_text("\n".join(lines[start - 1:end]))))


def chunk_ranges(line_count: int, starts: list[int]) -> list[tuple[int, int]]:
    """1-based, inclusive, non-overlapping line ranges: one per definition (a hit is then a whole
    function), the lines before the first one, each cut into CHUNK_LINES pieces when longer."""
    bounds = sorted({1, *[s for s in starts if 1 <= s <= line_count]})
    ranges: list[tuple[int, int]] = []
    for i, start in enumerate(bounds):
        end = bounds[i + 1] - 1 if i + 1 < len(bounds) else line_count
        for piece in range(start, end + 1, CHUNK_LINES):
            ranges.append((piece, min(piece + CHUNK_LINES - 1, end)))
    return ranges or [(1, max(line_count, 1))]
