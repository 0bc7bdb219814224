"""Read-only queries over the derived tracker database: ranked search, one issue, its parts.

One read-only connection per store, shared by the threads that read it, one query at a time (a lock held until
its rows are read): a search over every repository reads each in a lane of its own (tools/repo_lanes.py) while
the worker's thread reads some of them too, and a connection per thread would keep a page cache per thread
for every open repository (50 repositories of 2,000 issues, 2 lanes: 81.8 against 75.0 MiB). Different stores'
queries still run at once: SQLite runs a query without holding the GIL.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from datasets.tracker_db import BM25_WEIGHTS, connect_readonly, storable_id
from tools.fts_query import match_expression

State = Literal["open", "closed"]


@dataclass(frozen=True)
class Issue:
    """An issue's header and body (comments and labels are fetched separately)."""

    id: int
    title: str
    body: str
    state: str
    author: str | None
    created_at: str | None
    closed_at: str | None
    duplicate_of: int | None
    comment_count: int


@dataclass(frozen=True)
class Comment:
    """One comment, in thread order."""

    position: int
    author: str | None
    body: str
    created_at: str | None


@dataclass(frozen=True)
class Match:
    """A search's issue with how it matched: every term of the query or only some, and its bm25 relevance in this
    store (higher is better; its IDF is this store's, so it is not comparable with another store's)."""

    issue: Issue
    every_term: bool
    relevance: float


COLUMNS = "i.id, i.title, i.body, i.state, i.author, i.created_at, i.closed_at, i.duplicate_of, i.comment_count"
ORDER = f"bm25(issues_fts, {', '.join(map(str, BM25_WEIGHTS))})"


class IssueStore:
    """The tracker of one data folder, opened read-only."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    def connection(self) -> sqlite3.Connection:
        """The store's read-only connection (opened on first use); read it inside `reading()` from a thread."""
        with self._lock:
            if self._conn is None:
                self._conn = connect_readonly(self.path)
            return self._conn

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, this thread's alone until the block ends (a query and the reading of its rows)."""
        with self._lock:
            yield self.connection()

    def search(self, query: str, state: State | None = None, limit: int = 10) -> list[Issue]:
        """Best matches first (bm25): issues with every term, then issues with any term."""
        return [m.issue for m in self.matches(query, state, limit)]

    def matches(self, query: str, state: State | None = None, limit: int = 10) -> list[Match]:
        """`search`'s issues with how each matched (tools/merged_hits.py compares them across repositories)."""
        found: list[Match] = []
        every, some = match_expression(query, "all"), match_expression(query, "any")
        if every is None or some is None:
            return []
        passes = [(every, True)] + ([(some, False)] if some != every else [])  # one query when there is one term
        for expression, all_terms in passes:
            seen = {m.issue.id for m in found}
            for issue, score in self._match(expression, state, limit + len(found)):
                if issue.id not in seen and len(found) < limit:
                    found.append(Match(issue, all_terms, -score))  # FTS5's bm25 is negative: lower is better
            if len(found) >= limit:
                break
        return found

    def _match(self, expression: str, state: State | None, limit: int) -> list[tuple[Issue, float]]:
        if state is None:
            # Rank inside the FTS table alone and join only the top rows: the join is then not paid
            # for every match (the difference between ~3 ms and ~10 ms at 100k issues).
            sql = (
                f"SELECT {COLUMNS}, top.score FROM (SELECT rowid, {ORDER} AS score FROM issues_fts"
                " WHERE issues_fts MATCH ? ORDER BY score LIMIT ?) AS top JOIN issues i ON i.id = top.rowid"
                " ORDER BY top.score"
            )
            params: list[object] = [expression, limit]
        else:
            sql = (
                f"SELECT {COLUMNS}, {ORDER} AS score FROM issues_fts JOIN issues i ON i.id = issues_fts.rowid"
                " WHERE issues_fts MATCH ? AND i.state = ? ORDER BY score LIMIT ?"
            )
            params = [expression, state, limit]
        with self.reading() as conn:
            return [(_issue(row), row["score"]) for row in conn.execute(sql, params)]

    def get(self, issue_id: int) -> Issue | None:
        """One issue by number, or None (also for a number too large for SQLite to hold)."""
        if not storable_id(issue_id):
            return None
        with self.reading() as conn:
            row = conn.execute(f"SELECT {COLUMNS} FROM issues i WHERE i.id = ?", (issue_id,)).fetchone()
        return _issue(row) if row else None

    def comments(self, issue_id: int) -> list[Comment]:
        """An issue's comments in thread order."""
        if not storable_id(issue_id):
            return []
        with self.reading() as conn:
            rows = conn.execute(
                "SELECT position, author, body, created_at FROM comments WHERE issue_id = ? ORDER BY position",
                (issue_id,),
            ).fetchall()
        return [Comment(r["position"], r["author"], r["body"], r["created_at"]) for r in rows]

    def labels(self, issue_ids: list[int]) -> dict[int, list[str]]:
        """Label names per issue for several issues at once."""
        issue_ids = [i for i in issue_ids if storable_id(i)]
        if not issue_ids:
            return {}
        marks = ", ".join("?" for _ in issue_ids)
        with self.reading() as conn:
            rows = conn.execute(
                f"SELECT il.issue_id, l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id"
                f" WHERE il.issue_id IN ({marks}) ORDER BY il.issue_id, l.name",
                issue_ids,
            ).fetchall()
        out: dict[int, list[str]] = {i: [] for i in issue_ids}
        for row in rows:
            out[row["issue_id"]].append(row["name"])
        return out

    def id_range(self) -> tuple[int, int, int]:
        """(lowest id, highest id, number of issues)."""
        with self.reading() as conn:
            row = conn.execute("SELECT MIN(id), MAX(id), COUNT(*) FROM issues").fetchone()
        return (row[0] or 0, row[1] or 0, row[2])

    def close(self) -> None:
        """Close the connection (a later read opens it again)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _issue(row: sqlite3.Row) -> Issue:
    return Issue(
        row["id"],
        row["title"],
        row["body"],
        row["state"],
        row["author"],
        row["created_at"],
        row["closed_at"],
        row["duplicate_of"],
        row["comment_count"],
    )
