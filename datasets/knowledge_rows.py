"""The rows of the knowledge index: a pull request, release or discussion, or a code file, written and removed.

Both FTS5 tables are contentless (`content=''`): they keep tokens, not text, so a row can only leave them
through FTS5's 'delete' command given the very words it was indexed with. Those words are recomputed here
from the stored rows (items' title, body and extra; files' path and text, their symbols and chunks), by the
same functions that indexed them. Changing what a row indexes (index_text, code_text, the columns) therefore
needs a new SCHEMA_VERSION in datasets/knowledge_index.py, which rebuilds the index whole.

`sync_items` and `sync_code` bring the rows of one source in line with it, touching only what differs:
a record by the hash of its content (a changed one is replaced, a gone one deleted), a file by its blob sha,
read only when its stat differs from the one stored with it or is too recent to vouch for it (racy).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from datasets.code_symbols import symbols
from datasets.fts_text import index_text
from datasets.knowledge_files import DISCUSSIONS, PULLS, RELEASES, CodeFile, Stat, code_stats, read_code, read_jsonl

CHUNK_LINES = 30
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_FIXES = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#(\d+)", re.IGNORECASE)
_MENTION = re.compile(r"#(\d+)\b")
Fts = tuple[str, str, str]


def code_text(text: str) -> str:
    """`index_text` plus the camelCase parts of each word, for code."""
    words = index_text(text)
    extra = [" ".join(_CAMEL.findall(w)) for w in words.split() if any(c.isupper() for c in w[1:]) and w[:1].isalpha()]
    return words + (" " + " ".join(extra) if extra else "")


def path_text(paths: list[str]) -> str:
    """Changed file paths as index words: each path whole (`orbit/config.py`) and by its parts (`orbit`,
    `config.py`, `config`), camelCase split as in code, so a question naming a file or its folder finds them."""
    return " ".join(code_text(p) for p in paths)


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


def records(data_dir: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(kind, record) of every pull request, release and discussion, in source order."""
    for kind, source in (("pull_request", PULLS), ("release", RELEASES), ("discussion", DISCUSSIONS)):
        for row in read_jsonl(data_dir / source):
            yield kind, row


def sync_items(conn: sqlite3.Connection, data_dir: Path) -> tuple[int, int]:
    """Insert the records that are new or changed, delete the ones gone or replaced; returns (written, deleted)."""
    indexed: dict[tuple[str, str], list[int]] = {}
    for item_id, kind, digest in conn.execute("SELECT id, kind, source_hash FROM items ORDER BY id"):
        indexed.setdefault((kind, digest), []).append(item_id)
    fresh = []
    for kind, row in records(data_dir):
        key = (kind, content_hash(row))
        if indexed.get(key):
            indexed[key].pop()  # unchanged (a record given twice is indexed twice, as a whole build does)
        else:
            fresh.append((kind, row, key[1]))
    gone = [item_id for ids in indexed.values() for item_id in ids]
    for item_id in gone:
        delete_item(conn, item_id)
    for kind, row, digest in fresh:
        insert_item(conn, kind, row, digest)
    return len(fresh), len(gone)


def content_hash(row: dict[str, Any]) -> str:
    """What decides that a record changed: its whole content, keys sorted."""
    return hashlib.sha1(json.dumps(row, sort_keys=True).encode()).hexdigest()


def insert_item(conn: sqlite3.Connection, kind: str, row: dict[str, Any], digest: str) -> None:
    body = str(row.get("body") or "")
    number, tag, title, state, date = (
        row.get("number"),
        None,
        str(row.get("title") or ""),
        row.get("state"),
        row.get("created_at"),
    )
    extra: dict[str, Any] = {}
    if kind == "pull_request":
        date = row.get("merged_at") or row.get("created_at")
        extra = {"merged_at": row.get("merged_at"), "files": row.get("files") or []}
    elif kind == "release":
        number, tag, title, date = (
            None,
            row.get("tag"),
            str(row.get("name") or row.get("tag") or ""),
            row.get("published_at"),
        )
    else:
        answer = row.get("answer") if isinstance(row.get("answer"), dict) else None
        extra = {
            "category": row.get("category"),
            "answer": answer,
            "replies": [r for r in row.get("replies") or [] if isinstance(r, dict)],
        }
        state = "answered" if answer else "unanswered"
    fts = item_fts(kind, tag, title, body, extra)
    fixes = (
        sorted({int(n) for n in row.get("closes") or []} | {int(n) for n in _FIXES.findall(body)})
        if kind == "pull_request"
        else []
    )
    mentions = sorted({int(n) for n in _MENTION.findall(_searched_body(kind, body, extra))})
    cur = conn.execute(
        "INSERT INTO items(kind, number, tag, title, body, author, state, "
        "date, url, fixes, mentions, extra, source_hash)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            kind,
            number,
            tag,
            title,
            body,
            row.get("author"),
            state,
            date,
            row.get("url"),
            json.dumps(fixes),
            json.dumps(mentions),
            json.dumps(extra),
            digest,
        ),
    )
    conn.execute("INSERT INTO items_fts(rowid, title, body, files) VALUES (?, ?, ?, ?)", (cur.lastrowid, *fts))


def delete_item(conn: sqlite3.Connection, item_id: int) -> None:
    kind, tag, title, body, extra = conn.execute(
        "SELECT kind, tag, title, body, extra FROM items WHERE id = ?", (item_id,)
    ).fetchone()
    fts = item_fts(kind, tag, title, body, json.loads(extra))
    conn.execute(
        "INSERT INTO items_fts(items_fts, rowid, title, body, files) VALUES ('delete', ?, ?, ?, ?)", (item_id, *fts)
    )
    conn.execute("DELETE FROM items WHERE id = ?", (item_id,))


def item_fts(kind: str, tag: str | None, title: str, body: str, extra: dict[str, Any]) -> Fts:
    """The words an item is indexed by (title, body, changed paths), from what its row stores."""
    paths = [str(p) for p in extra.get("files") or []] if kind == "pull_request" else []
    return index_text(f"{tag or ''} {title}"), index_text(_searched_body(kind, body, extra)), path_text(paths)


def _searched_body(kind: str, body: str, extra: dict[str, Any]) -> str:
    """A discussion is found by its answer and replies too."""
    if kind != "discussion":
        return body
    answer = extra.get("answer")
    parts = (
        [body]
        + ([str(answer.get("body") or "")] if answer else [])
        + [str(r.get("body") or "") for r in extra.get("replies") or []]
    )
    return "\n\n".join(parts)


def sync_code(conn: sqlite3.Connection, root: Path, racy_ns: int) -> tuple[int, int]:
    """Re-index the files whose blob sha changed, add new ones, delete the ones gone; returns (written, deleted).

    A file whose stat is the one stored with it is not read, unless that stat is not strictly older than
    `racy_ns` (when the update that stored it began): then it may have been rewritten in the same timestamp
    tick, so it is read and hashed all the same (git's racy-timestamp rule)."""
    indexed = {
        path: (file_id, sha, seen) for file_id, path, sha, seen in conn.execute("SELECT id, path, sha, stat FROM files")
    }
    written, gone = 0, []
    for path, full, found in code_stats(root):
        known = indexed.pop(path, None)
        if known is not None and known[2] == found.key() and found.newest_ns() < racy_ns:
            continue  # unchanged since the last update: not opened
        item = read_code(path, full)
        if item is None:  # became binary, generated or unreadable: it leaves the index
            gone += [known[0]] if known is not None else []
            continue
        if known is not None and known[1] == item.sha:
            if known[2] != found.key():
                conn.execute("UPDATE files SET stat = ? WHERE id = ?", (found.key(), known[0]))
            continue
        if known is not None:
            delete_file(conn, known[0])
        insert_file(conn, item, found)
        written += 1
    gone += [file_id for file_id, _, _ in indexed.values()]
    for file_id in gone:
        delete_file(conn, file_id)
    return written, len(gone)


def all_code(root: Path) -> Iterator[tuple[CodeFile, Stat]]:
    """Each searchable file of the tree with the stat taken before it was read (a whole build)."""
    for path, full, found in code_stats(root):
        item = read_code(path, full)
        if item is not None:
            yield item, found


def insert_file(conn: sqlite3.Connection, item: CodeFile, found: Stat) -> None:
    lines = item.text.splitlines()
    cur = conn.execute(
        "INSERT INTO files(path, sha, text, line_count, stat) VALUES (?, ?, ?, ?, ?)",
        (item.path, item.sha, item.text, len(lines), found.key()),
    )
    file_id = cur.lastrowid
    defined = symbols(item.text)
    conn.executemany(
        "INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(s.name, s.name.lower(), s.qualname, s.kind, file_id, s.line, s.end) for s in defined],
    )
    named = [(s.qualname, s.line) for s in defined]
    for start, end in chunk_ranges(len(lines), [s.line for s in defined]):
        cur = conn.execute("INSERT INTO chunks(file_id, start_line, end_line) VALUES (?, ?, ?)", (file_id, start, end))
        conn.execute(
            "INSERT INTO chunks_fts(rowid, path, symbols, text) VALUES (?, ?, ?, ?)",
            (cur.lastrowid, *chunk_fts(item.path, named, lines, start, end)),
        )


def delete_file(conn: sqlite3.Connection, file_id: int) -> None:
    """A file, its symbols and chunks out of the index (the chunks' words recomputed from its stored rows)."""
    path, text = conn.execute("SELECT path, text FROM files WHERE id = ?", (file_id,)).fetchone()
    lines = text.splitlines()
    named = conn.execute("SELECT qualname, line FROM symbols WHERE file_id = ? ORDER BY rowid", (file_id,)).fetchall()
    for chunk_id, start, end in conn.execute(
        "SELECT id, start_line, end_line FROM chunks WHERE file_id = ? ORDER BY id", (file_id,)
    ).fetchall():
        conn.execute(
            "INSERT INTO chunks_fts(chunks_fts, rowid, path, symbols, text) VALUES ('delete', ?, ?, ?, ?)",
            (chunk_id, *chunk_fts(path, named, lines, start, end)),
        )
    conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def chunk_fts(path: str, named: list[tuple[str, int]], lines: list[str], start: int, end: int) -> Fts:
    """The words a chunk is indexed by: its file's path, the names defined in it, its lines."""
    names = " ".join(qualname for qualname, line in named if start <= line <= end)
    return code_text(path.replace("/", " ")), code_text(names), code_text("\n".join(lines[start - 1 : end]))
