"""The knowledge index is updated in place, row by row, and always answers as a whole build of the same folder.

The folder is the Orbit demo's knowledge and code (datasets/knowledge_generate.py). "Answers as a whole build"
is compared on everything a reader can see: every row (ids left out), the FTS5 vocabularies (term, rows,
occurrences: a token left behind by a bad delete shows there) and bm25 scores of a few queries. What an
update rewrote is counted from the statements SQLite ran (sqlite3's trace callback).
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from datasets import knowledge_index, knowledge_rows
from datasets.knowledge_files import RELEASES
from datasets.tracker_db import connect_readonly
from tests.support.knowledge_index_dump import (  # noqa: F401 - fixtures, requested by name
    Dump,
    add_one_release,
    answer_one_discussion,
    change_one_file,
    data,
    dump,
    dump_of,
    remove_one_file,
    remove_one_pull,
    touch_repo,
    whole_build,
    writes,
)
from tests.support.paths import REPO as CHECKOUT

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
