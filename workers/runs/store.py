"""The run store: run records and their progress events in Redis."""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from workers.errors import RunNotFound
from workers.runs.state import RunState

RUN_TTL_SECONDS = 30 * 24 * 3600
EVENTS_MAXLEN = 1000


def run_key(run_id: str) -> str:
    return f"atlas:run:{run_id}"


def events_key(run_id: str) -> str:
    return f"atlas:run:{run_id}:events"


class RunStore:
    """Loads and saves whole run records; every step ends with `save`."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn

    def save(self, run: RunState) -> None:
        run.updated_at = time.time()
        self.conn.set(run_key(run.id), run.model_dump_json(), ex=RUN_TTL_SECONDS)

    def load(self, run_id: str) -> RunState:
        raw = self.conn.get(run_key(run_id))
        if raw is None:
            raise RunNotFound(run_id)
        return RunState.model_validate_json(raw)

    def publish(self, run_id: str, event: dict[str, Any], *, expire: bool = True) -> None:
        """Append a progress event for anyone watching (the CLI tails this stream); `expire=False` when
        the stream's TTL was (re)set moments ago, by this job's first event."""
        key = events_key(run_id)
        if not expire:
            self.conn.xadd(key, {"event": json.dumps(event)}, maxlen=EVENTS_MAXLEN, approximate=True)
            return
        pipe = self.conn.pipeline(transaction=False)
        pipe.xadd(key, {"event": json.dumps(event)}, maxlen=EVENTS_MAXLEN, approximate=True)
        pipe.expire(key, RUN_TTL_SECONDS)
        pipe.execute()

    def events(self, run_id: str, after: str = "0", block_ms: int = 1000) -> list[tuple[str, dict[str, Any]]]:
        """Events after stream id `after`, waiting up to `block_ms` for the first one."""
        reply: list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]] | None = self.conn.xread(  # type: ignore[assignment]  # bytes replies
            {events_key(run_id): after}, block=block_ms, count=100)
        out: list[tuple[str, dict[str, Any]]] = []
        for _key, entries in reply or []:
            for entry_id, fields in entries:
                out.append((entry_id.decode(), json.loads(fields[b"event"])))
        return out
