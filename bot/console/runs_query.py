"""Reading runs from the console's indexes (workers/runs/run_index.py) with bounded queries.

A page is at most `PAGE` rows, found by walking the smallest index among the filters asked for, newest
first, in chunks, and keeping the rows that match the rest; it looks at `LOOK_AT_MOST` entries at most,
then offers the next page from where it stopped. No KEYS, no SCAN, never the whole set.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import redis

from atlas.connection import text
from workers.runs import run_index
from workers.runs.run_index import Row

PAGE = 50
CHUNK = 200
LOOK_AT_MOST = 2000
MENU = 100  # the most values a filter's menu lists (the most recently seen)
FEEDBACK = ("up", "down", "none")


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

    def matches(self, row: Row) -> bool:
        votes = {"up": row.up > 0, "down": row.down > 0, "none": row.up == 0 and row.down == 0}
        return ((not self.platform or row.platform == self.platform) and (not self.channel or row.channel == self.channel)
                and (not self.status or row.status == self.status) and (not self.model or row.model == self.model)
                and (not self.feedback or votes.get(self.feedback, False)))

    def single(self) -> bool:
        """At most one filter, and it has an index of its own."""
        active = [f.name for f in fields(self) if getattr(self, f.name)]
        return not active or (len(active) == 1 and self.feedback in ("", "up", "down"))

    def keys(self) -> list[str]:
        """The indexes that hold every match of one filter each ("none" feedback has none of its own)."""
        found = [run_index.facet_key(f.name, getattr(self, f.name)) for f in fields(self)
                 if getattr(self, f.name) and not (f.name == "feedback" and self.feedback not in ("up", "down"))]
        return found or [run_index.all_key()]


@dataclass(frozen=True)
class Listing:
    rows: list[Row]
    older: float | None  # the cursor of the next page, None when there is none
    looked_at: int


def rows(conn: redis.Redis, ids: list[str]) -> list[Row]:
    """The rows of these runs, in order (an expired one is left out)."""
    if not ids:
        return []
    raws = conn.mget([run_index.row_key(i) for i in ids])
    return [Row.of(raw) for raw in raws if raw is not None]


def listing(conn: redis.Redis, filters: Filters, before: float | None = None, page: int = PAGE) -> Listing:
    """Newest first, one page of runs matching `filters`, older than `before`."""
    keys = filters.keys()
    if len(keys) > 1:
        pipe = conn.pipeline(transaction=False)
        for key in keys:
            pipe.zcard(key)
        sizes = pipe.execute()
        keys = [min(zip(sizes, keys, strict=True))[1]]
    key = keys[0]
    # One filter (or none) with its own index: every entry matches, so read no more than a page.
    size = page if filters.single() else CHUNK
    found: list[Row] = []
    top = f"({before!r}" if before is not None else "+inf"
    looked = 0
    while looked < LOOK_AT_MOST:
        chunk: list[tuple[bytes, float]] = conn.zrevrangebyscore(key, top, "-inf", start=0, num=size, withscores=True)  # type: ignore[assignment]  # bytes replies
        by_id = {r.id: r for r in rows(conn, [text(m) for m, _ in chunk])}
        for n, (member, score) in enumerate(chunk):
            looked += 1
            top = f"({score!r}"
            row = by_id.get(text(member))
            if row is not None and filters.matches(row):
                found.append(row)
                if len(found) == page:
                    more = n + 1 < len(chunk) or len(chunk) == size
                    return Listing(found, score if more else None, looked)
        if len(chunk) < size:
            return Listing(found, None, looked)
    return Listing(found, float(top[1:]), looked)


def menu(conn: redis.Redis, facet: str) -> list[str]:
    """The values a filter has taken, most recently seen first."""
    found: list[bytes] = conn.zrevrange(run_index.values_key(facet), 0, MENU - 1)  # type: ignore[assignment]  # bytes replies
    return [text(v) for v in found]


def total(conn: redis.Redis) -> int:
    return int(conn.zcard(run_index.all_key()))
