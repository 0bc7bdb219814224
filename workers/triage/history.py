"""An issue tracker's history in creation order: what a triage may read, and as of when.

Every issue gets a `seq`, its place in creation order: (created_at, number), so issues opened on the
same day (a day-only date) are ordered by number, and an issue with no date (a thread whose opening
post is missing) takes the date of the nearest earlier-numbered one (GitHub numbers are given in
creation order). "Before issue N" is then `seq < N.seq`, one integer comparison, so the backtest's
as-of filter is a mask over one index, never a rebuild.

Only what was written when an issue was opened is loaded as text (title and body). Of what came
later, the triage reads an earlier issue's duplicate decision only once it was made before the
issue being triaged (`duplicate_since`: its closing time, else the dated comment naming the
original), and an earlier issue's labels, which the export gives without the time they were set: a
neighbour's labels are its labels now (the one look past the point in time that the data forces).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from datasets.tracker_db import connect_readonly


@dataclass(frozen=True)
class Record:
    """One issue as the triage sees it (and, for scoring only, what maintainers decided)."""

    id: int
    seq: int
    title: str
    body: str
    created_at: str | None
    labels: tuple[str, ...]  # scoring and neighbours only: never read for the issue being triaged
    duplicate_of: int | None  # scoring; and for later issues once `duplicate_since` is past
    state: str  # scoring only
    when: str = ""  # the date used for ordering (created_at, or the nearest earlier-numbered issue's)
    duplicate_since: str | None = (
        None  # when it was closed as a duplicate (closed_at, or the comment naming the original)
    )


class History:
    """All issues of one tracker, in creation order (`records[seq]`)."""

    def __init__(self, records: list[Record], first_replies: dict[int, str] | None = None) -> None:
        self.records = records
        self.by_id = {r.id: r for r in records}
        # scoring only (the backtest's replies figure): each issue's first comment by someone else
        self.first_replies = first_replies or {}

    @classmethod
    def from_db(cls, db: Path) -> History:
        """Read the derived tracker database (datasets/tracker_db.py) once, read-only."""
        conn = connect_readonly(db)
        try:
            history = cls.from_rows(_rows(conn))
            history.first_replies = _first_replies(conn)
            return history
        finally:
            conn.close()

    @classmethod
    def from_rows(cls, rows: list[dict[str, object]]) -> History:
        """Order issue dicts (id, title, body, created_at, labels, duplicate_of, state) by creation."""
        rows = sorted(rows, key=lambda r: _int(r["id"]))
        last: str = ""
        keyed: list[tuple[str, int, dict[str, object]]] = []
        for row in rows:  # a missing date: the nearest earlier-numbered issue's
            created = row.get("created_at")
            last = created if isinstance(created, str) and created else last
            keyed.append((last, _int(row["id"]), row))
        keyed.sort(key=lambda k: (k[0], k[1]))
        records = [
            Record(
                id=number,
                seq=seq,
                title=str(row.get("title") or ""),
                body=str(row.get("body") or ""),
                created_at=_opt_str(row.get("created_at")),
                labels=tuple(str(n) for n in row.get("labels") or () if isinstance(n, str)),  # type: ignore[attr-defined]
                duplicate_of=_opt_int(row.get("duplicate_of")),
                state=str(row.get("state") or "open"),
                when=when,
                duplicate_since=_opt_str(row.get("duplicate_since")),
            )
            for seq, (when, number, row) in enumerate(keyed)
        ]
        return cls(records)

    def get(self, issue_id: int) -> Record | None:
        return self.by_id.get(issue_id)

    def __len__(self) -> int:
        return len(self.records)


def _rows(conn: sqlite3.Connection) -> list[dict[str, object]]:
    # When a duplicate was known as one: its closing time, else the first dated comment naming the original.
    since: dict[int, str] = {}
    for row in conn.execute(
        "SELECT i.id, i.duplicate_of, i.closed_at, c.body, c.created_at FROM issues i"
        " LEFT JOIN comments c ON c.issue_id = i.id WHERE i.duplicate_of IS NOT NULL"
        " ORDER BY i.id, c.position"
    ):
        if row["id"] in since:
            continue
        if row["closed_at"]:
            since[row["id"]] = row["closed_at"]
        elif row["body"] and row["created_at"] and f"#{row['duplicate_of']}" in row["body"]:
            since[row["id"]] = row["created_at"]
    labels: dict[int, list[str]] = {}
    for row in conn.execute(
        "SELECT il.issue_id, l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id ORDER BY il.issue_id, l.id"
    ):
        labels.setdefault(row[0], []).append(row[1])
    return [
        {
            "id": r["id"],
            "title": r["title"],
            "body": r["body"],
            "created_at": r["created_at"],
            "labels": labels.get(r["id"], []),
            "duplicate_of": r["duplicate_of"],
            "state": r["state"],
            "duplicate_since": since.get(r["id"]),
        }
        for r in conn.execute("SELECT id, title, body, created_at, duplicate_of, state FROM issues")
    ]


def _int(value: object) -> int:
    return value if isinstance(value, int) else int(str(value))


def _first_replies(conn: sqlite3.Connection) -> dict[int, str]:
    out: dict[int, str] = {}
    for row in conn.execute(
        "SELECT c.issue_id, c.body FROM comments c JOIN issues i ON i.id = c.issue_id"
        " WHERE c.author IS NOT i.author ORDER BY c.issue_id, c.position"
    ):
        out.setdefault(row[0], row[1])
    return out


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def known_before(stamp: str | None, moment: str) -> bool:
    """Whether something dated `stamp` happened strictly before `moment` (ISO dates or times; a day-only
    date on either side compares by day, and the same day counts as not before)."""
    if not stamp or not moment:
        return False
    if len(stamp) == 10 or len(moment) == 10:
        return stamp[:10] < moment[:10]
    return stamp < moment


def _opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None
