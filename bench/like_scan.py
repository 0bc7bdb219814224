"""The naive baseline the FTS5 index is compared against: LIKE '%word%' over title and body.

Each query keyword found in the title counts one, found in the body counts one; issues are ranked
by that count (ties: lower id first). This is the common first implementation of issue search.
"""

from __future__ import annotations

import sqlite3

from tools.fts_query import terms


def like_search(conn: sqlite3.Connection, query: str, limit: int) -> list[int]:
    """Issue ids ranked by how many keywords match title and body with LIKE; [] without keywords."""
    words = terms(query)
    if not words:
        return []
    clauses, params = [], []
    for word in words:
        pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        clauses.append("(title LIKE ? ESCAPE '\\') + (body LIKE ? ESCAPE '\\')")
        params += [pattern, pattern]
    score = " + ".join(clauses)
    sql = f"SELECT id FROM (SELECT id, {score} AS score FROM issues) WHERE score > 0 ORDER BY score DESC, id LIMIT ?"
    return [row[0] for row in conn.execute(sql, [*params, limit])]
