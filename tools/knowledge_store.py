"""Read-only queries over the knowledge index (datasets/knowledge_index.py): code, PRs, releases, discussions.

A path is only ever looked up as a row of the index, never opened: what the tools read is what the
sync put in the tree, so `../` or a symlink out of it cannot reach anything else.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from typing import Any, Literal

from datasets.knowledge_index import code_text
from tools.fts_query import match_expression, terms
from tools.readonly_db import ReadOnlyDb

Kind = Literal["pull_request", "release", "discussion"]
CHUNK_ORDER = "bm25(chunks_fts, 2.0, 6.0, 1.0)"
ITEM_ORDER = "bm25(items_fts, 6.0, 1.0, 4.0)"  # title, body, changed paths
PATH_WORD = re.compile(
    r"/|^[\w-]+\.[a-z][a-z0-9]{0,5}$", re.IGNORECASE
)  # src/x, lease.py; not 3.1.1 nor a sentence's end


@dataclass(frozen=True)
class CodeHit:
    """A place in a file: its path, a line range, and the names defined there (a symbol hit: the one asked for)."""

    path: str
    start: int
    end: int
    defines: tuple[str, ...]
    symbol: bool
    grade: int = 2  # how it matched (tools/merged_hits.py): 2 a definition of a name asked, 1 every word, 0 some
    relevance: float = 1.0  # a chunk's bm25 in this store (higher is better); every definition alike


@dataclass(frozen=True)
class Item:
    """A pull request, release or discussion."""

    kind: Kind
    number: int | None
    tag: str | None
    title: str
    body: str
    author: str | None
    state: str | None
    date: str | None
    url: str | None
    fixes: list[int]
    mentions: list[int]
    extra: dict[str, Any]


@dataclass(frozen=True)
class ItemMatch:
    """A searched item with how it matched: 2 a pull request that changed a file the query names, 1 every word, 0
    some; its bm25 relevance in this store (higher is better, not comparable with another store's)."""

    item: Item
    grade: int
    relevance: float


class KnowledgeStore(ReadOnlyDb):
    """The knowledge index of one data folder, opened read-only (one connection per thread)."""

    def meta(self, key: str) -> str:
        row = self.connection().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else ""

    def file_count(self) -> int:
        return int(self.connection().execute("SELECT COUNT(*) FROM files").fetchone()[0])

    def item_count(self, kind: Kind | None = None) -> int:
        sql, params = "SELECT COUNT(*) FROM items", []
        if kind:
            sql, params = sql + " WHERE kind = ?", [kind]
        return int(self.connection().execute(sql, params).fetchone()[0])

    def symbol_hits(self, query: str, prefix: str, limit: int) -> list[CodeHit]:
        """Definitions of a name in the query (case-insensitive; `Class.method` or its last part): a word that
        looks like an identifier (renew_lease, Heartbeat.run, renewLease), or a query that is one word."""
        words = terms(query)
        names = [t.rsplit(".", 1)[-1] for t in words if len(words) == 1 or looks_like_code(t)]
        if not names:
            return []
        marks = ", ".join("?" for _ in names)
        rows = (
            self.connection()
            .execute(
                f"SELECT f.path, s.qualname, s.line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id"
                f" WHERE s.lower IN ({marks}) AND f.path LIKE ? ESCAPE '\\' ORDER BY f.path, s.line LIMIT ?",
                [*names, _like(prefix), limit],
            )
            .fetchall()
        )
        return [CodeHit(r["path"], r["line"], r["end_line"], (r["qualname"],), True) for r in rows]

    def chunk_hits(self, query: str, prefix: str, limit: int) -> list[CodeHit]:
        """Best chunks for the words of the query (all words, then any), bm25 with symbols and paths weighted up."""
        found: list[CodeHit] = []
        modes: tuple[Literal["all", "any"], ...] = ("all", "any")
        for mode in modes:
            expression = match_expression(code_text(query), mode)
            if expression is None:
                return found
            rows = (
                self.connection()
                .execute(
                    f"SELECT f.path, c.file_id, c.start_line, c.end_line, {CHUNK_ORDER} AS score FROM "
                    "chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
                    " JOIN files f ON f.id = c.file_id WHERE chunks_fts MATCH ? AND f.path LIKE ? ESCAPE '\\'"
                    " ORDER BY score LIMIT ?",
                    [expression, _like(prefix), limit * 2],
                )
                .fetchall()
            )
            for r in rows:
                if len(found) < limit and not any(
                    h.path == r["path"] and h.start <= r["end_line"] and r["start_line"] <= h.end for h in found
                ):
                    found.append(
                        CodeHit(
                            r["path"],
                            r["start_line"],
                            r["end_line"],
                            self._defined(r["file_id"], r["start_line"], r["end_line"]),
                            False,
                            int(mode == "all"),
                            -r["score"],
                        )
                    )
            if len(found) >= limit:
                break
        return found

    def _defined(self, file_id: int, start: int, end: int) -> tuple[str, ...]:
        rows = self.connection().execute(
            "SELECT qualname FROM symbols WHERE file_id = ? AND line BETWEEN ? AND ? ORDER BY line",
            (file_id, start, end),
        )
        return tuple(r[0] for r in rows)

    def file(self, path: str) -> tuple[str, str] | None:
        """(blob sha, text) of the file at exactly `path` in the synced tree, or None."""
        row = self.connection().execute("SELECT sha, text FROM files WHERE path = ?", (path,)).fetchone()
        return (row["sha"], row["text"]) if row else None

    def paths(self) -> list[str]:
        return [r[0] for r in self.connection().execute("SELECT path FROM files ORDER BY path")]

    def search_items(self, query: str, kind: Kind | None, limit: int) -> list[Item]:
        """Best pull requests, releases or discussions for the query: first the pull requests that changed a file
        the query names (`orbit/config.py`), then all words, then any."""
        return [m.item for m in self.item_matches(query, kind, limit)]

    def item_matches(self, query: str, kind: Kind | None, limit: int) -> list[ItemMatch]:
        """`search_items`'s items with how each matched (tools/merged_hits.py compares them across repositories)."""
        found = [ItemMatch(*m) for m in self._changed(query, limit)] if kind in (None, "pull_request") else []
        modes: tuple[Literal["all", "any"], ...] = ("all", "any")
        for mode in modes:
            expression = match_expression(query, mode)
            if expression is None:
                return found
            sql = (
                f"SELECT i.*, {ITEM_ORDER} AS score FROM items_fts JOIN items i ON i.id = items_fts.rowid"
                " WHERE items_fts MATCH ?" + (" AND i.kind = ?" if kind else "") + " ORDER BY score LIMIT ?"
            )
            params: list[object] = [expression, *([kind] if kind else []), limit]
            seen = {(m.item.kind, m.item.number, m.item.tag) for m in found}
            for row in self.connection().execute(sql, params):
                item = _item(row)
                if (item.kind, item.number, item.tag) not in seen and len(found) < limit:
                    found.append(ItemMatch(item, int(mode == "all"), -row["score"]))
            if len(found) >= limit:
                break
        return found

    def _changed(self, query: str, limit: int) -> list[tuple[Item, int, float]]:
        """Pull requests whose changed paths hold every path-like word of the query (a/b.py, lease.py), best first."""
        paths = [w for w in (w.strip("`'\"?!,;:()[]<>") for w in query.split()) if PATH_WORD.search(w)]
        expression = match_expression(" ".join(paths), "all") if paths else None
        if expression is None:
            return []
        rows = (
            self.connection()
            .execute(
                f"SELECT i.*, {ITEM_ORDER} AS score FROM items_fts JOIN items i ON i.id = items_fts.rowid "
                "WHERE items_fts MATCH ? AND i.kind = 'pull_request' ORDER BY score LIMIT ?",
                [f"files : ({expression})", limit],
            )
            .fetchall()
        )
        return [(_item(r), 2, -r["score"]) for r in rows]

    def item(self, kind: Kind, ident: str) -> Item | None:
        """One item by number (PR, discussion) or tag (release; 'v3.1.1' or '3.1.1')."""
        if kind == "release":
            tag = ident.strip()
            row = (
                self.connection()
                .execute(
                    "SELECT * FROM items WHERE kind = 'release' AND (tag = ? OR tag = ? OR ltrim(tag, 'v') = ?)",
                    (tag, "v" + tag, tag.lstrip("v")),
                )
                .fetchone()
            )
        else:
            digits = ident.strip().lstrip("#")
            if not digits.isdigit() or len(digits) > 12:
                return None
            row = (
                self.connection()
                .execute("SELECT * FROM items WHERE kind = ? AND number = ?", (kind, int(digits)))
                .fetchone()
            )
        return _item(row) if row else None

    def idents(self, kind: Kind) -> list[str]:
        column = "tag" if kind == "release" else "number"
        return [
            str(r[0])
            for r in self.connection().execute(f"SELECT {column} FROM items WHERE kind = ? ORDER BY date", (kind,))
        ]

    def fixes_of(self, issue: int) -> tuple[list[Item], list[Item]]:
        """Pull requests that close `issue` (linked or 'fixes #N'), and the ones that only mention it."""
        rows = [
            _item(r) for r in self.connection().execute("SELECT * FROM items WHERE kind = 'pull_request' ORDER BY date")
        ]
        return [p for p in rows if issue in p.fixes], [p for p in rows if issue in p.mentions and issue not in p.fixes]

    def releases(self) -> list[Item]:
        """Releases, oldest first."""
        return [_item(r) for r in self.connection().execute("SELECT * FROM items WHERE kind = 'release' ORDER BY date")]


def looks_like_code(word: str) -> bool:
    """renew_lease, Heartbeat.run, renewLease, HTTPServer: not an ordinary word of a sentence."""
    return "_" in word or ("." in word and not word.replace(".", "").isdigit()) or any(c.isupper() for c in word[1:])


def _like(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def _item(row: sqlite3.Row) -> Item:
    return Item(
        row["kind"],
        row["number"],
        row["tag"],
        row["title"],
        row["body"],
        row["author"],
        row["state"],
        row["date"],
        row["url"],
        json.loads(row["fixes"]),
        json.loads(row["mentions"]),
        json.loads(row["extra"]),
    )
