"""Reading runs from the console's indexes (workers/console_data/run_index.py) with bounded queries.

A page is at most `PAGE` runs, found by walking the smallest index among the filters asked for, newest
first, in chunks, keeping the ids that are in every other filter's index too (ZMSCORE); it looks at
`LOOK_AT_MOST` ids at most, then offers the next page from where it stopped. Only the runs shown are read
(their records, parsed as plain JSON). No KEYS, no SCAN, never a whole set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

import redis

from atlas.connection import text
from workers.console_data import run_index
from workers.console_data.votes import feedback_key
from workers.runs.store import run_key

PAGE = 50
CHUNK = 200
LOOK_AT_MOST = 2000
MENU = 100  # the most values a filter's menu lists (the most recently seen)
FEEDBACK = ("up", "down", "none")
QUESTION_CHARS = 500


@dataclass(frozen=True)
class Row:
    """One run as a list shows it, read from its record."""

    id: str
    question: str
    platform: str
    channel: str
    user: str
    status: str
    model: str
    created_at: float
    cost_usd: float
    tokens: int
    steps: int
    gap: str
    up: int = 0
    down: int = 0

    @classmethod
    def of(cls, record: dict[str, Any], votes: list[bytes] | None = None) -> Row:
        origin, usage = record.get("origin") or {}, record.get("usage") or {}
        given = [text(v) for v in votes or []]
        gap = run_index.gap_of(str(record.get("status")), record.get("answer"), record.get("handoff")) or (
            "voted_down" if "down" in given else ""
        )
        return cls(
            id=str(record.get("id")),
            question=str(record.get("question") or "")[:QUESTION_CHARS],
            platform=str(origin.get("kind") or ""),
            channel=str(origin.get("channel") or ""),
            user=str(origin.get("user") or ""),
            status=str(record.get("status") or ""),
            model=str((record.get("answered_by") or {}).get("model") or ""),
            created_at=float(record.get("created_at") or 0),
            cost_usd=float(record.get("cost_usd") or 0),
            tokens=int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0),
            steps=len(record.get("steps") or []),
            gap=gap,
            up=given.count("up"),
            down=given.count("down"),
        )


@dataclass(frozen=True)
class Filters:
    platform: str = ""
    channel: str = ""
    status: str = ""
    model: str = ""
    feedback: str = ""  # up, down or none

    @classmethod
    def of(cls, query: dict[str, str]) -> Filters:
        return cls(**{f.name: query.get(f.name, "")[:200] for f in fields(cls)})

    def sets(self) -> list[tuple[str, bool]]:
        """(index, a run must be in it) for each filter asked: "none" feedback is in neither vote set."""
        found = [
            (run_index.facet_key(f.name, getattr(self, f.name)), True)
            for f in fields(self)
            if getattr(self, f.name) and f.name != "feedback"
        ]
        if self.feedback in ("up", "down"):
            found.append((run_index.facet_key("feedback", self.feedback), True))
        elif self.feedback:
            found += [(run_index.facet_key("feedback", "up"), False), (run_index.facet_key("feedback", "down"), False)]
        return found


@dataclass(frozen=True)
class Listing:
    rows: list[Row]
    older: float | None  # the cursor of the next page, None when there is none
    looked_at: int


def rows(conn: redis.Redis, ids: list[str]) -> list[Row]:
    """These runs as rows, in order, with their votes (an expired one is left out)."""
    if not ids:
        return []
    pipe = conn.pipeline(transaction=False)
    pipe.mget([run_key(i) for i in ids])
    for run_id in ids:
        pipe.hvals(feedback_key(run_id))
    records, *votes = pipe.execute()
    return [Row.of(json.loads(raw), given) for raw, given in zip(records, votes, strict=True) if raw is not None]


def _walked(conn: redis.Redis, filters: Filters) -> tuple[str, list[tuple[str, bool]]]:
    """The index to walk (the smallest that every match is in) and the checks left for each id."""
    sets = filters.sets()
    required = [key for key, inside in sets if inside]
    if not required:
        return run_index.all_key(), sets
    pipe = conn.pipeline(transaction=False)
    for key in required:
        pipe.zcard(key)
    smallest = min(zip(pipe.execute(), required, strict=True))[1]
    return smallest, [(key, inside) for key, inside in sets if key != smallest]


def listing(conn: redis.Redis, filters: Filters, before: float | None = None, page: int = PAGE) -> Listing:
    """Newest first, one page of runs matching `filters`, older than `before`."""
    key, checks = _walked(conn, filters)
    size = page if not checks else CHUNK  # nothing left to check: every id walked is shown
    kept: list[str] = []
    top = f"({before!r}" if before is not None else "+inf"
    looked = 0
    while looked < LOOK_AT_MOST:
        chunk: list[tuple[bytes, float]] = conn.zrevrangebyscore(key, top, "-inf", start=0, num=size, withscores=True)  # type: ignore[assignment]  # bytes replies
        members = [text(m) for m, _ in chunk]
        passes = [True] * len(chunk)
        if chunk and checks:
            pipe = conn.pipeline(transaction=False)
            for check, _ in checks:
                pipe.zmscore(check, members)
            for (_, inside), scores in zip(checks, pipe.execute(), strict=True):
                passes = [ok and ((score is not None) == inside) for ok, score in zip(passes, scores, strict=True)]
        for n, (member, score) in enumerate(chunk):
            looked += 1
            top = f"({score!r}"
            if passes[n]:
                kept.append(text(member))
                if len(kept) == page:
                    more = n + 1 < len(chunk) or len(chunk) == size
                    return Listing(rows(conn, kept), score if more else None, looked)
        if len(chunk) < size:
            return Listing(rows(conn, kept), None, looked)
    return Listing(rows(conn, kept), float(top[1:]), looked)


def menu(conn: redis.Redis, facet: str) -> list[str]:
    """The values a filter has taken, most recently seen first."""
    found: list[bytes] = conn.zrevrange(run_index.values_key(facet), 0, MENU - 1)  # type: ignore[assignment]  # bytes replies
    return [text(v) for v in found]


def total(conn: redis.Redis) -> int:
    return int(conn.zcard(run_index.all_key()))
