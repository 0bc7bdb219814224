"""What the knowledge index's tests compare and count: everything a reader can get out of an index (rows with ids
left out, the FTS5 vocabularies, bm25 scores of a few queries), the rows an update wrote (from SQLite's trace
callback), the Orbit demo's knowledge folder as a fixture, and the changes a sync makes to it."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from datasets import generate, knowledge_generate, knowledge_index
from datasets.knowledge_files import CODE, DISCUSSIONS, PULLS, RELEASES, REPO
from datasets.tracker_db import connect_readonly

QUERIES = ("lease renewed", "heartbeat", "config", '"orb-1202"', "timeout retry", "reconnect jitter")
Dump = dict[str, Any]
WRITE = re.compile(r"^\s*(INSERT INTO|DELETE FROM)\s+(\w+)(\s*\(\s*\w+_fts\s*,)?", re.IGNORECASE)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    knowledge_generate.write(root, generate.issue_numbers())
    knowledge_index.ensure(root)
    return root


def dump(conn: sqlite3.Connection) -> Dump:
    """Everything a reader can get out of the index, ids left out."""
    out: Dump = {
        "items": sorted(
            map(
                tuple,
                conn.execute(
                    "SELECT kind, number, tag, title, body, author, state, date, url, fixes, mentions, extra FROM items"
                ),
            ),
            key=repr,
        ),
        "files": sorted(map(tuple, conn.execute("SELECT path, sha, text, line_count FROM files"))),
        "symbols": sorted(
            map(
                tuple,
                conn.execute(
                    "SELECT s.name, s.qualname, s.kind, f.path, s.line, s.end_line"
                    " FROM symbols s JOIN files f ON f.id = s.file_id"
                ),
            )
        ),
        "chunks": sorted(
            map(
                tuple,
                conn.execute("SELECT f.path, c.start_line, c.end_line FROM chunks c JOIN files f ON f.id = c.file_id"),
            )
        ),
    }
    for table in ("items_fts", "chunks_fts"):
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_vocab USING fts5vocab(main, {table}, 'row')")
        out[table] = [tuple(r) for r in conn.execute(f"SELECT term, doc, cnt FROM temp.{table}_vocab ORDER BY term")]
    out["code hits"] = [
        sorted(
            map(
                tuple,
                conn.execute(
                    "SELECT f.path, c.start_line, round(bm25(chunks_fts, 2.0, 6.0, "
                    "1.0), 6) FROM chunks_fts JOIN chunks c"
                    " ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id WHERE chunks_fts MATCH ?",
                    (q,),
                ),
            )
        )
        for q in QUERIES
    ]
    out["item hits"] = [
        sorted(
            map(
                tuple,
                conn.execute(
                    "SELECT i.kind, i.number, i.tag, round(bm25(items_fts, 6.0, "
                    "1.0, 4.0), 6) FROM items_fts JOIN items i"
                    " ON i.id = items_fts.rowid WHERE items_fts MATCH ?",
                    (q,),
                ),
            ),
            key=repr,
        )
        for q in QUERIES
    ]
    return out


def dump_of(path: Path) -> Dump:
    conn = connect_readonly(path)
    try:
        return dump(conn)
    finally:
        conn.close()


def whole_build(data: Path, tmp_path: Path) -> Dump:
    """What a first build of the folder as it is now holds."""
    target = tmp_path / "fresh" / "knowledge.db"
    knowledge_index.build(data, target, knowledge_index.fingerprint(data))
    return dump_of(target)


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Statements that wrote a row, by table ('files delete' for a DELETE, 'chunks_fts delete' for FTS5's), over every
    connection opened from here on."""
    counted: Counter[str] = Counter()
    connect = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(*args, **kwargs)
        conn.set_trace_callback(lambda sql: _count(counted, sql))
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    yield counted


def _count(counted: Counter[str], sql: str) -> None:
    found = WRITE.match(sql)
    if found:
        counted[found[2].lower() + (" delete" if found[3] or found[1].upper().startswith("DELETE") else "")] += 1


def touch_repo(data: Path) -> None:
    """What a sync does last (datasets/github/code.py): repo.json rewritten, so the index notices the tree."""
    repo = json.loads((data / REPO).read_text())
    (data / REPO).write_text(json.dumps({**repo, "commit": "b" * 40}) + "\n")


def edit_lines(path: Path, change: Callable[[list[str]], list[str]]) -> None:
    lines = path.read_text().splitlines()
    path.write_text("".join(line + "\n" for line in change(lines)))


def change_one_file(data: Path) -> None:
    with (data / CODE / "orbit" / "retry.py").open("a") as out:
        out.write("\n\ndef backoff_ceiling(attempt):\n    return min(attempt * 2, 60)\n")
    touch_repo(data)


def remove_one_file(data: Path) -> None:
    (data / CODE / "orbit" / "lease.py").unlink()
    touch_repo(data)


def add_one_release(data: Path) -> None:
    with (data / RELEASES).open("a") as out:
        out.write(
            json.dumps(
                {
                    "tag": "v9.9.9",
                    "name": "Orbit 9.9.9",
                    "body": "Reconnect jitter tuned (#242).",
                    "published_at": "2026-11-30T12:00:00Z",
                    "url": "https://example.test/v9.9.9",
                }
            )
            + "\n"
        )


def remove_one_pull(data: Path) -> None:
    edit_lines(data / PULLS, lambda lines: lines[1:])


def answer_one_discussion(data: Path) -> None:
    def answered(lines: list[str]) -> list[str]:
        first = json.loads(lines[0])
        first["answer"] = {"author": "dsoto", "body": "Set heartbeat_seconds below lease_seconds."}
        return [json.dumps(first)] + lines[1:]

    edit_lines(data / DISCUSSIONS, answered)


# each change, and the rows it may rewrite: files and items written and deleted (chunks follow their file)
