"""`atlas knowledge list` / `atlas knowledge forget ID`: the solved threads kept as knowledge (docs/knowledge.md)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import redis

from atlas.connection import connect
from atlas.settings import Settings
from workers.knowledge import entries


def run(settings: Settings, action: str, ident: str | None) -> int:
    """List the entries, or delete one; exit 1 for an unknown id or Redis out of reach."""
    try:
        conn = connect(settings)
        if action == "list":
            for entry in entries.listed(conn):
                day = datetime.fromtimestamp(entry.approved_at, tz=UTC).strftime("%Y-%m-%d")
                print(f"{entry.id}  {day}  {entry.question}  {entry.permalink}".rstrip())
            return 0
        if not ident:
            print("atlas knowledge forget: which entry? (its id, from `atlas knowledge list`)", file=sys.stderr)
            return 1
        if not entries.forget(conn, ident):
            print(f"atlas knowledge forget: no entry {ident!r}", file=sys.stderr)
            return 1
    except redis.RedisError as exc:
        print(f"atlas knowledge: Redis is unreachable ({type(exc).__name__})", file=sys.stderr)
        return 1
    print(f"forgot {ident}: search_history no longer finds it")
    return 0
