"""The derived tracker database: schema, exact FTS tokens, read-only access, staleness, atomic rebuilds."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.tracker_db import (
    DatasetError,
    build,
    connect_readonly,
    db_path,
    ensure_db,
    index_text,
    read_meta,
)
from tests.support.paths import REPO
from tests.support.tools_dataset import ISSUES, make_dataset, write_issues
from tools.fts_query import match_expression, terms
from tools.issue_store import IssueStore


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return make_dataset(tmp_path)


def ids(store: IssueStore, query: str, **kw: object) -> list[int]:
    return [i.id for i in store.search(query, limit=20, **kw)]  # type: ignore[arg-type]


def test_schema_and_labels(data: Path) -> None:
    conn = connect_readonly(ensure_db(data))
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    assert {"meta", "issues", "comments", "labels", "issue_labels", "issues_fts"} <= tables
    row = conn.execute("SELECT kind, value FROM labels WHERE name = 'comp:redis-broker'").fetchone()
    assert tuple(row) == ("comp", "redis-broker")
    row = conn.execute("SELECT kind, value FROM labels WHERE name = 'needs-repro'").fetchone()
    assert tuple(row) == (None, "needs-repro")
    assert conn.execute("SELECT COUNT(*) FROM comments WHERE issue_id = 3").fetchone()[0] == 12
    assert conn.execute("SELECT duplicate_of FROM issues WHERE id = 2").fetchone()[0] == 1


@pytest.mark.parametrize(
    "query,expected",
    [
        ("ORB-1202", {4}),  # not #7's "orb 1202", not ORB-1201/ORB-1203
        ("lease_seconds", {6}),  # not #7's "lease seconds"
        ("3.1.0", {3, 8}),  # #8 says "(not 3.1.0)"; 3.1.1 alone would not match
        ("3.1.1", {8}),
        ("ORB-1201", {5}),
    ],
)
def test_fts_finds_exact_tokens(data: Path, query: str, expected: set[int]) -> None:
    assert set(ids(IssueStore(ensure_db(data)), query)) == expected


def test_compound_parts_still_match_loose_words(data: Path) -> None:
    store = IssueStore(ensure_db(data))
    assert 6 in ids(store, "lease seconds")  # lease_seconds is indexed with its parts
    assert 4 in ids(store, "dead letter")  # dead-letter likewise


def test_ranking_title_first_and_state_filter(data: Path) -> None:
    store = IssueStore(ensure_db(data))
    assert ids(store, "DST ran twice")[:2] == [1, 2]
    assert ids(store, "DST ran twice", state="open") == []
    assert ids(store, "reconnect storm redis")[0] == 3


def test_query_syntax_is_inert(data: Path) -> None:
    store = IssueStore(ensure_db(data))
    for hostile in ['"', "title:DST", "NEAR(a b)", "DST*", "a OR", "^x", "'); DROP TABLE issues; --", "AND"]:
        store.search(hostile, limit=5)  # must not raise an FTS syntax error
    assert match_expression("title:DST NEAR") == '"title" OR "dst" OR "near"'
    assert terms("What does ORB-1202 mean?") == ["orb-1202"]


def test_index_text_normalisation() -> None:
    assert index_text("failed with ORB-1202.") == "failed with ORB-1202 ORB 1202"
    assert index_text("(3.1.0), dead-letter -- e.g.") == "3.1.0 3 1 0 dead-letter dead letter e.g e g"
    assert index_text("lease_seconds") == "lease_seconds lease seconds"


def test_read_connection_cannot_write(data: Path) -> None:
    conn = connect_readonly(ensure_db(data))
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("DELETE FROM issues")
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("CREATE TABLE x(y)")


def test_stale_db_is_rebuilt_and_fresh_db_kept(data: Path) -> None:
    path = ensure_db(data)
    inode = path.stat().st_ino
    assert ensure_db(data) == path and path.stat().st_ino == inode  # fresh: untouched
    source = data / "issues" / "issues.jsonl"
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10_000_000))
    ensure_db(data)
    assert path.stat().st_ino == inode  # touched, same sha: kept, stat remembered
    assert read_meta(path)["source_mtime_ns"] == str(source.stat().st_mtime_ns)

    write_issues(data, ISSUES + [{"id": 50, "title": "Brand new flux capacitor bug", "body": "", "state": "open"}])
    ensure_db(data)
    assert path.stat().st_ino != inode
    assert ids(IssueStore(path), "flux capacitor") == [50]
    assert read_meta(path)["issue_count"] == str(len(ISSUES) + 1)


def test_schema_change_triggers_rebuild(data: Path) -> None:
    path = ensure_db(data)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE meta SET value = 'old' WHERE key = 'schema_version'")
    conn.close()
    inode = path.stat().st_ino
    ensure_db(data)
    assert path.stat().st_ino != inode


def test_build_always_rebuilds(data: Path) -> None:
    path = ensure_db(data)
    inode = path.stat().st_ino
    assert build(data) == path and path.stat().st_ino != inode


def test_malformed_source_names_the_line(data: Path) -> None:
    source = data / "issues" / "issues.jsonl"
    source.write_text(source.read_text() + '{"id": 77, "title": "half a line\n')
    with pytest.raises(DatasetError, match=r"issues.jsonl:10"):
        build(data)
    assert not list((data / "issues").glob("*.tmp"))  # the temp file was discarded


def test_missing_source_is_a_dataset_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no issues file"):
        ensure_db(tmp_path)


RACE = """
import sys
from pathlib import Path
from datasets.tracker_db import ensure_db
from tools.issue_store import IssueStore
path = ensure_db(Path(sys.argv[1]))
print(IssueStore(path).id_range()[2])
"""


def test_processes_racing_to_rebuild_all_get_a_complete_db(data: Path) -> None:
    write_issues(
        data,
        ISSUES
        + [{"id": n, "title": f"Issue {n} about redis", "body": "x " * 200, "state": "open"} for n in range(100, 400)],
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(data)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    results = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [r[1] for r in results]
    assert {r[0].strip() for r in results} == {str(len(ISSUES) + 300)}
    assert not list((data / "issues").glob("*.tmp"))
    conn = connect_readonly(db_path(data))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
