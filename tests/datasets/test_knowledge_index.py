"""The knowledge index is updated in place, row by row, and always answers as a whole build of the same folder.

The folder is the Orbit demo's knowledge and code (datasets/knowledge_generate.py). "Answers as a whole build"
is compared on everything a reader can see: every row (ids left out), the FTS5 vocabularies (term, rows,
occurrences: a token left behind by a bad delete shows there) and bm25 scores of a few queries. What an
update rewrote is counted from the statements SQLite ran (sqlite3's trace callback).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from datasets import generate, knowledge_generate, knowledge_index, knowledge_rows
from datasets.knowledge_files import CODE, DISCUSSIONS, PULLS, RELEASES, REPO
from datasets.tracker_db import connect_readonly
from tests.support.paths import REPO as CHECKOUT

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
CHANGES = {
    "one code file changed": (change_one_file, {"files": 1, "files delete": 1, "items": 0}),
    "one code file deleted": (remove_one_file, {"files": 0, "files delete": 1, "items": 0}),
    "one release added": (add_one_release, {"items": 1, "items delete": 0, "files": 0}),
    "one pull request removed": (remove_one_pull, {"items": 0, "items delete": 1, "files": 0}),
    "one discussion answered": (answer_one_discussion, {"items": 1, "items delete": 1, "files": 0}),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_an_update_answers_as_a_whole_build_and_rewrites_only_what_changed(
    name: str, data: Path, tmp_path: Path, writes: Counter[str]
) -> None:
    change, rewritten = CHANGES[name]
    before = dump_of(knowledge_index.db_path(data))
    change(data)
    knowledge_index.ensure(data)
    ran = Counter(writes)
    after, fresh = dump_of(knowledge_index.db_path(data)), whole_build(data, tmp_path)
    assert after == fresh and after != before
    assert {table: ran[table] for table in rewritten} == rewritten
    changed = {path for path, *_ in set(fresh["files"]) ^ set(before["files"])}
    assert ran["chunks"] == sum(1 for p, *_ in fresh["chunks"] if p in changed)  # the changed file's chunks only
    assert ran["chunks_fts delete"] == sum(1 for p, *_ in before["chunks"] if p in changed)


def test_nothing_changed_in_the_sources_rewrites_no_row(data: Path, writes: Counter[str]) -> None:
    (data / RELEASES).write_text((data / RELEASES).read_text())  # a sync rewrites the file with the same records
    touch_repo(data)
    knowledge_index.ensure(data)
    assert {t: n for t, n in writes.items() if t != "meta"} == {}


def test_a_reader_open_during_an_update_sees_the_old_index_then_the_new_one(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = connect_readonly(knowledge_index.db_path(data))  # as tools/readonly_db.py opens it
    old = dump(reader)
    seen: list[Dump] = []
    connect = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(*args, **kwargs)
        conn.set_trace_callback(
            lambda sql: seen.append(dump(reader)) if re.match(r"INSERT INTO files\b", sql) else None
        )
        return conn

    change_one_file(data)
    add_one_release(data)
    monkeypatch.setattr(sqlite3, "connect", traced)
    knowledge_index.ensure(data)  # items first, then code: the reader looks when the first file is written
    monkeypatch.undo()
    assert seen and all(mid == old for mid in seen)
    assert dump(reader) == whole_build(data, tmp_path) != old
    reader.close()


def test_an_exception_mid_update_leaves_the_old_index_and_the_next_open_finishes(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = knowledge_index.db_path(data)
    old = dump_of(target)
    add_one_release(data)
    change_one_file(data)
    remove_one_file(data)

    def broken(text: str) -> list[Any]:
        raise RuntimeError("disk gone")

    monkeypatch.setattr(knowledge_rows, "symbols", broken)
    with pytest.raises(RuntimeError, match="disk gone"):
        knowledge_index.ensure(data)
    monkeypatch.undo()
    assert dump_of(target) == old
    knowledge_index.ensure(data)
    assert dump_of(target) == whole_build(data, tmp_path)


def test_a_process_killed_mid_update_leaves_the_old_index_readable(data: Path, tmp_path: Path) -> None:
    target = knowledge_index.db_path(data)
    old = dump_of(target)
    add_one_release(data)
    change_one_file(data)
    code = (
        "import os,sys;from pathlib import Path;from datasets import knowledge_index,knowledge_rows;"
        "knowledge_rows.symbols=lambda text:os._exit(9);knowledge_index.ensure(Path(sys.argv[1]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(data)],
        cwd=CHECKOUT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(CHECKOUT)},
    )
    assert done.returncode == 9
    assert dump_of(target) == old  # read-only, as the tools read it, with the killed writer's WAL beside it
    knowledge_index.ensure(data)
    assert dump_of(target) == whole_build(data, tmp_path)


def test_a_schema_change_rebuilds_every_row_in_place(
    data: Path, tmp_path: Path, writes: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = knowledge_index.db_path(data)
    inode, files = target.stat().st_ino, len(dump_of(target)["files"])
    monkeypatch.setattr(knowledge_index, "SCHEMA_VERSION", "next")
    knowledge_index.ensure(data)
    assert writes["files"] == files and target.stat().st_ino == inode  # no rename under a WAL reader
    assert dump_of(target) == whole_build(data, tmp_path)


def test_a_corrupt_index_is_built_again_whole(data: Path, tmp_path: Path) -> None:
    target = knowledge_index.db_path(data)
    target.write_bytes(b"not a database at all" * 100)
    Path(f"{target}-wal").write_bytes(b"\0" * 64)
    touch_repo(data)
    knowledge_index.ensure(data)
    assert dump_of(target) == whole_build(data, tmp_path)


def test_two_updates_at_once_do_the_work_once(data: Path, tmp_path: Path, writes: Counter[str]) -> None:
    change_one_file(data)
    start = threading.Barrier(2, timeout=30)

    def update() -> None:
        start.wait()
        knowledge_index.ensure(data)

    threads = [threading.Thread(target=update) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert writes["files"] == 1
    assert dump_of(knowledge_index.db_path(data)) == whole_build(data, tmp_path)
