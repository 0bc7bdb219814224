"""Solved threads kept as knowledge: the entries maintainers approved, in Redis (`atlas:knowledge:entries`, a
hash: id -> the entry's JSON; never expires, `atlas knowledge forget ID` or the console deletes one).

An entry's id is derived from its thread (`K` + 10 hex digits), so a thread approved twice is one entry.
Search is by shared word stems (the docs index's stemmer), weighted to the question: the entries are few
(a maintainer approves each), so all are read per search.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict

import redis

from atlas.connection import text
from tools.docsearch.terms import QUIET
from tools.docsearch.terms import tokens as stems
from tools.solved_threads import SolvedThread

ENTRIES = "atlas:knowledge:entries"


def entry_id(thread: str) -> str:
    """The entry of a thread (its key, workers/followup/subscriptions.py `thread_key`)."""
    return "K" + hashlib.sha256(thread.encode()).hexdigest()[:10]


def save(conn: redis.Redis, entry: SolvedThread) -> None:
    conn.hset(ENTRIES, entry.id, json.dumps(asdict(entry)))


def get(conn: redis.Redis, ident: str) -> SolvedThread | None:
    raw = conn.hget(ENTRIES, ident.strip())
    return _entry(text(raw)) if raw else None


def forget(conn: redis.Redis, ident: str) -> bool:
    """Delete the entry; False when there was none."""
    return bool(conn.hdel(ENTRIES, ident.strip()))


def any_kept(conn: redis.Redis) -> bool:
    """Whether any entry is kept (the offline answer searches them only then); Redis down: as none."""
    try:
        return bool(conn.exists(ENTRIES))
    except redis.RedisError:
        return False


def listed(conn: redis.Redis) -> list[SolvedThread]:
    """Every entry, newest first."""
    return sorted((_entry(text(raw)) for raw in conn.hvals(ENTRIES)), key=lambda e: -e.approved_at)


class RedisSolvedThreads:
    """The tools' view of the entries (tools/solved_threads.py `SolvedThreads`)."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn

    def search(self, query: str, limit: int) -> list[SolvedThread]:
        wanted = set(stems(query, QUIET))
        if not wanted:
            return []
        scored = []
        for entry in listed(self.conn):
            asked, said = set(stems(entry.question, QUIET)), set(stems(entry.answer, QUIET))
            score = 2 * len(wanted & asked) + len(wanted & said)
            if len(wanted & (asked | said)) * 2 >= len(wanted):  # half the query's words, at least
                scored.append((score, entry.approved_at, entry))
        scored.sort(key=lambda s: (-s[0], -s[1]))
        return [entry for _, _, entry in scored[:limit]]


def _entry(raw: str) -> SolvedThread:
    data = json.loads(raw)
    return SolvedThread(
        str(data["id"]),
        str(data["question"]),
        str(data["answer"]),
        tuple(data.get("links") or ()),
        str(data.get("permalink") or ""),
        float(data.get("approved_at") or time.time()),
    )
