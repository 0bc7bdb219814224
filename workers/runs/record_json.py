"""A run's record as JSON, read and written without its model (workers/runs/state.py `RunState`).

Why: a warm `atlas ask` writes a new question's record, waits for it to be final and prints its answer; building
the model for that cost it about 65 ms of pydantic's imports and schemas, a quarter of the command (issue 40: the
bench holds it to twice `python -c 'import redis, rq'`). The format stays RunState's: a new record here is the
fields a new CLI run sets (RunState's defaults fill in the rest when a worker loads it), and `FinishedRun` reads only
what the answer shows. tests/workers/runs/test_record_json.py checks both against RunState, field for field.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis

from workers.errors import RunNotFound

RUN_TTL_SECONDS = 30 * 24 * 3600
EVENTS_MAXLEN = 1000
FINAL_STATUSES: frozenset[str] = frozenset({"done", "partial", "failed", "expired"})


def run_key(run_id: str) -> str:
    return f"atlas:run:{run_id}"


def events_key(run_id: str) -> str:
    return f"atlas:run:{run_id}:events"


def new_record(question: str, user: str | None, fingerprint: str | None) -> dict[str, Any]:
    """What `RunState(question=..., origin=Origin(kind="cli", user=...), settings_fingerprint=..., unfiled=True)`
    saves that is not a default: a new question asked from the command line."""
    now = time.time()
    return {
        "id": uuid.uuid4().hex[:16],
        "question": question,
        "origin": {"kind": "cli", "user": user},
        "settings_fingerprint": fingerprint,
        "unfiled": True,
        "created_at": now,
        "updated_at": now,
    }


def save_new(conn: redis.Redis, record: dict[str, Any]) -> None:
    """Store a new record as `RunStore.save` stores a run that is not filed yet: its key, its TTL."""
    conn.set(run_key(record["id"]), json.dumps(record), ex=RUN_TTL_SECONDS)


def load(conn: redis.Redis, run_id: str) -> dict[str, Any]:
    raw = conn.get(run_key(run_id))
    if raw is None:
        raise RunNotFound(run_id)
    record: dict[str, Any] = json.loads(raw)
    return record


def events(conn: redis.Redis, run_id: str, after: str = "0", block_ms: int = 1000) -> list[tuple[str, dict[str, Any]]]:
    """Events after stream id `after`, waiting up to `block_ms` for the first one."""
    Reply = list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]] | None  # a connection without decoding: bytes
    reply: Reply = conn.xread({events_key(run_id): after}, block=block_ms, count=100)  # type: ignore[assignment]
    out: list[tuple[str, dict[str, Any]]] = []
    for _key, entries in reply or []:
        for entry_id, fields in entries:
            out.append((entry_id.decode(), json.loads(fields[b"event"])))
    return out


@dataclass(frozen=True)
class Tokens:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class Answerer:
    model: str
    data_dir: str


@dataclass(frozen=True)
class FinishedRun:
    """What a finished run's answer shows (workers/messages/answer.py `answer_of`), read off its stored record."""

    id: str
    status: str
    answer: str | None
    error: str | None
    partial: bool
    stop_reason: str | None
    sources: list[str]
    source_urls: dict[str, str]
    steps: list[Any]
    usage: Tokens
    cost_usd: float
    triage: Any
    filing: Any
    solved: Any
    answered_by: Answerer | None

    @classmethod
    def of(cls, record: dict[str, Any]) -> FinishedRun:
        usage, by = record.get("usage") or {}, record.get("answered_by")
        return cls(
            id=record["id"],
            status=record.get("status", "queued"),
            answer=record.get("answer"),
            error=record.get("error"),
            partial=bool(record.get("partial", False)),
            stop_reason=record.get("stop_reason"),
            sources=list(record.get("sources") or []),
            source_urls=dict(record.get("source_urls") or {}),
            steps=list(record.get("steps") or []),
            usage=Tokens(int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))),
            cost_usd=float(record.get("cost_usd", 0.0)),
            triage=record.get("triage"),
            filing=record.get("filing"),
            solved=record.get("solved"),
            answered_by=Answerer(by["model"], by["data_dir"]) if by else None,
        )

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES
