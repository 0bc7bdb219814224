"""The audit log of side effects: every request, decision and result, appended to one Redis stream.

The stream is trimmed to ATLAS_AUDIT_RETENTION_DAYS (90 by default; 0 keeps everything) by `trim`, which
every worker runs with RQ's maintenance (workers/process/rq_worker.py); Redis runs with AOF, so appends are durable.
`atlas audit` reads it newest first. Decisions and expiries are appended by the same Lua script that records them
(workers/approvals/records.py), so a decision is never recorded without its audit entry.

Every entry has `kind` (request | decision | revision | result; a revision: arguments changed before the decision) and
`at` (unix seconds), and, as far as known at that moment: run, pending_id, tool, arguments, issue, requester, decider,
decision, result.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import redis

from atlas.connection import text
from atlas.text import clip

AUDIT_KEY = "atlas:audit"
FIELDS = ("run", "pending_id", "tool", "arguments", "issue", "requester", "decider", "decision", "result")
Kind = Literal["request", "decision", "revision", "result"]


@dataclass(frozen=True)
class Entry:
    """One audit record as stored; missing fields are empty strings."""

    id: str
    kind: str
    at: float
    fields: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str:
        return self.fields.get(name, "")


def append(conn: redis.Redis, kind: Kind, **fields: object) -> str:
    """Append one entry now; returns its stream id."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown audit fields: {sorted(unknown)}")
    record = {"kind": kind, "at": repr(time.time()), **{k: _text(v) for k, v in fields.items() if v is not None}}
    return text(conn.xadd(AUDIT_KEY, dict[Any, Any](record)))


def trim(conn: redis.Redis, retention_days: int) -> int:
    """Drop entries older than `retention_days` (0: none); how many went. Stream ids are the Redis server's
    milliseconds at the append (XADD `*`), so the cutoff is taken from the server's clock (TIME) too."""
    if retention_days <= 0:
        return 0
    seconds, micros = conn.time()
    cutoff_ms = (int(seconds) - retention_days * 86400) * 1000 + int(micros) // 1000
    return int(conn.xtrim(AUDIT_KEY, minid=cutoff_ms, approximate=False))


def issue_of(arguments: str) -> str:
    """The issue a call's JSON arguments are about ('' if none), for filtering by issue."""
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return ""
    number = value.get("issue_id") if isinstance(value, dict) else None
    return str(number) if isinstance(number, int) else ""


def entries(
    conn: redis.Redis,
    *,
    issue: int | None = None,
    user: str | None = None,
    limit: int = 50,
    batch: int = 500,
    where: Callable[[Entry], bool] | None = None,
    read_at_most: int | None = None,
) -> list[Entry]:
    """Newest first, at most `limit`, optionally only those about `issue`, involving `user` or passing `where`;
    with `read_at_most`, no more entries than that are read (the console's search stays bounded)."""
    found: list[Entry] = []
    upper = "+"
    read = 0
    while len(found) < limit and (read_at_most is None or read < read_at_most):
        # Entry ids and fields are bytes (decode_responses off); redis-py types them loosely.
        chunk: list[tuple[bytes, dict[bytes, bytes]]] = conn.xrevrange(AUDIT_KEY, max=upper, min="-", count=batch)  # type: ignore[assignment]
        if not chunk:
            break
        read += len(chunk)
        for raw_id, raw in chunk:
            entry = _entry(text(raw_id), raw)
            if _matches(entry, issue, user) and (where is None or where(entry)):
                found.append(entry)
                if len(found) >= limit:
                    break
        if len(chunk) < batch:
            break
        upper = "(" + text(chunk[-1][0])
    return found


def render(found: list[Entry]) -> str:
    """One line per entry for `atlas audit`: when, what, who, the call, and the outcome."""
    if not found:
        return "(no audit entries)"
    lines = []
    for e in found:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(e.at))
        who = {
            "request": f"requested by {e.get('requester') or '-'}",
            "decision": f"{e.get('decision') or '-'} by {e.get('decider') or '-'}",
            "revision": f"changed by {e.get('decider') or '-'}",
            "result": f"result: {e.get('decision') or '-'}",
        }.get(e.kind, e.kind)
        call = f"{e.get('tool')}({e.get('arguments')})"
        tail = f"  -> {clip(' '.join(str(e.get('result')).split()), 120, '...')}" if e.get("result") else ""
        lines.append(f"{when}Z  {e.kind:<8}  run {e.get('run')}  {call}  {who}{tail}")
    return "\n".join(lines)


def as_json(found: list[Entry]) -> list[dict[str, object]]:
    return [{"id": e.id, "kind": e.kind, "at": e.at, **e.fields} for e in found]


def _matches(entry: Entry, issue: int | None, user: str | None) -> bool:
    if issue is not None and entry.get("issue") != str(issue):
        return False
    if user is not None and user not in (entry.get("requester"), entry.get("decider")):
        return False
    return True


def _entry(raw_id: str, raw: Mapping[bytes, bytes]) -> Entry:
    values = {text(k): text(v) for k, v in raw.items()}
    kind = values.pop("kind", "")
    at = float(values.pop("at", "0") or 0)
    return Entry(raw_id, kind, at, values)


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)
