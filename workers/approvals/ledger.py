"""The idempotency ledger: an approved side-effect call runs at most once per (run, call_id).

Before running a call the worker claims it (`executing`, with HSETNX, so exactly one claimant
wins); after, it records `done` with the output. A later attempt (a retried or duplicated resume
job, another worker) finds the claim and does not run the call again: `done` hands back the recorded
output, and `executing` without an output means a worker stopped between acting and recording, so
whether the action happened is unknown. That call is never retried automatically; it is reported
for a human to check (`InDoubt`).
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

import redis

LEDGER_TTL_SECONDS = 90 * 24 * 3600


@dataclass(frozen=True)
class Claimed:
    """This attempt owns the call: run it, then `record` the output."""


@dataclass(frozen=True)
class AlreadyDone:
    """The call ran and its output was recorded: reuse it, do not run again."""

    output: str
    ok: bool


@dataclass(frozen=True)
class InDoubt:
    """A claim without an output: a worker stopped mid-call. Not run again; a human must check."""

    claimed_at: float
    claimed_by: str


Claim = Claimed | AlreadyDone | InDoubt


def ledger_key(run_id: str) -> str:
    return f"atlas:ledger:{run_id}"


def claim(conn: redis.Redis, run_id: str, call_id: str) -> Claim:
    """Claim a call before running it; says whether to run it, reuse its output, or report it."""
    key = ledger_key(run_id)
    mark = json.dumps({"state": "executing", "at": time.time(), "by": f"{socket.gethostname()}:{os.getpid()}"})
    pipe = conn.pipeline(transaction=True)
    pipe.hsetnx(key, call_id, mark)
    pipe.expire(key, LEDGER_TTL_SECONDS)
    won, _ = pipe.execute()
    if won:
        return Claimed()
    entry = entry_of(conn, run_id, call_id) or {}
    if entry.get("state") in ("done", "in_doubt"):
        return AlreadyDone(str(entry.get("output", "")), bool(entry.get("ok", False)))
    return InDoubt(float(entry.get("at", 0.0)), str(entry.get("by", "")))


def record(conn: redis.Redis, run_id: str, call_id: str, output: str, ok: bool) -> None:
    """Record a claimed call's output (`done`)."""
    entry = {"state": "done", "at": time.time(), "output": output, "ok": ok}
    conn.hset(ledger_key(run_id), call_id, json.dumps(entry))


def settle_in_doubt(conn: redis.Redis, run_id: str, call_id: str, output: str) -> None:
    """After an in-doubt call was reported: keep the evidence, and give later attempts its error output."""
    entry = {**(entry_of(conn, run_id, call_id) or {}), "state": "in_doubt", "output": output, "ok": False,
             "reported_at": time.time()}
    conn.hset(ledger_key(run_id), call_id, json.dumps(entry))


def entry_of(conn: redis.Redis, run_id: str, call_id: str) -> dict[str, Any] | None:
    """The raw ledger entry of a call, or None when it was never claimed."""
    raw = conn.hget(ledger_key(run_id), call_id)
    entry: dict[str, Any] | None = json.loads(raw) if raw else None
    return entry
