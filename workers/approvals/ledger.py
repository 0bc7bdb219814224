"""The idempotency ledger: an approved side-effect call runs at most once per (run, call_id).

Before running a call the worker claims it (`executing`, with HSETNX, so exactly one claimant
wins); after, it records `done` with the output. A later attempt (a retried or duplicated resume
job, another worker) finds the claim and does not run the call again: `done` hands back the recorded
output, and `executing` without an output means a worker stopped between acting and recording, so
whether the action happened is unknown. That call is never retried automatically; it is reported
for a human to check (`InDoubt`).

Except when it provably sent nothing: a claim made for a tracker that guards its sends
(tools/send_guard.py) starts `sent: false` and is marked sent in the tracker's write turn, right
before the request leaves. A worker that died before that (waiting for the turn behind a dead
holder, validating) leaves an unsent claim, and the next attempt takes it over (`Claimed` again,
with a new token) instead of reporting it in doubt. Taking over and marking sent both compare the
entry as read, so of two live attempts only one ever sends.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis

from atlas.lua import run_script
from tools.errors import for_people

LEDGER_TTL_SECONDS = 90 * 24 * 3600


@dataclass(frozen=True)
class Claimed:
    """This attempt owns the call: run it, then `record` the output. `token` marks it sent (`mark_sent`)."""

    token: str = ""
    resumed: bool = False  # taken over from an attempt that died before sending


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


_SWAP = (
    "if redis.call('hget', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('hset', KEYS[1], ARGV[1], ARGV[3]) return 1 end"
    " return 0"
)


def claim(conn: redis.Redis, run_id: str, call_id: str, *, sent: bool = True) -> Claim:
    """Claim a call before running it; says whether to run it, reuse its output, or report it. `sent=False`
    when the tracker marks the send itself (`mark_sent`), so that a claim that never sent can be resumed."""
    key = ledger_key(run_id)
    token = uuid.uuid4().hex
    mark = _mark(token, sent)
    pipe = conn.pipeline(transaction=True)
    pipe.hsetnx(key, call_id, mark)
    pipe.expire(key, LEDGER_TTL_SECONDS)
    won, _ = pipe.execute()
    if won:
        return Claimed(token)
    raw = conn.hget(key, call_id)
    entry: dict[str, Any] = json.loads(raw) if raw else {}
    if entry.get("state") in ("done", "in_doubt"):
        return AlreadyDone(str(entry.get("output", "")), bool(entry.get("ok", False)))
    if entry.get("sent") is False and raw is not None and run_script(conn, _SWAP, [key], [call_id, raw, mark]):
        return Claimed(token, resumed=True)  # the attempt before died before its request left: nothing happened
    return InDoubt(float(entry.get("at", 0.0)), str(entry.get("by", "")))


def mark_sent(conn: redis.Redis, run_id: str, call_id: str, token: str) -> bool:
    """Right before the request leaves: True when this claim (`token`) still owns the call, now marked sent;
    False when another attempt took it over (this one must send nothing)."""
    key = ledger_key(run_id)
    raw = conn.hget(key, call_id)
    entry: dict[str, Any] = json.loads(raw) if raw else {}
    if raw is None or entry.get("token") != token or entry.get("state") != "executing":
        return False
    if entry.get("sent") is not False:
        return True
    if run_script(conn, _SWAP, [key], [call_id, raw, json.dumps({**entry, "sent": True, "sent_at": time.time()})]):
        return True
    again = entry_of(conn, run_id, call_id) or {}  # changed since read: still ours only if we marked it
    return again.get("token") == token and again.get("sent") is True


def _mark(token: str, sent: bool) -> str:
    return json.dumps(
        {
            "state": "executing",
            "at": time.time(),
            "by": f"{socket.gethostname()}:{os.getpid()}",
            "token": token,
            "sent": sent,
        }
    )


def record(conn: redis.Redis, run_id: str, call_id: str, output: str, ok: bool) -> None:
    """Record a claimed call's output (`done`)."""
    entry = {"state": "done", "at": time.time(), "output": output, "ok": ok}
    conn.hset(ledger_key(run_id), call_id, json.dumps(entry))


def settle_in_doubt(conn: redis.Redis, run_id: str, call_id: str, output: str) -> None:
    """After an in-doubt call was reported: keep the evidence, and give later attempts its error output."""
    entry = {
        **(entry_of(conn, run_id, call_id) or {}),
        "state": "in_doubt",
        "output": output,
        "ok": False,
        "reported_at": time.time(),
    }
    conn.hset(ledger_key(run_id), call_id, json.dumps(entry))


def entry_of(conn: redis.Redis, run_id: str, call_id: str) -> dict[str, Any] | None:
    """The raw ledger entry of a call, or None when it was never claimed."""
    raw = conn.hget(ledger_key(run_id), call_id)
    entry: dict[str, Any] | None = json.loads(raw) if raw else None
    return entry


def shown_result(conn: redis.Redis, run_id: str, call_id: str) -> dict[str, Any]:
    """The call's result as its card shows it (`result`, `ok`), once the ledger has it done; else nothing. A click's
    card edit reads it: the closing decision queues the resume first, so a quick worker may have run the call and
    shown its result on the card already, and an edit without it would hide it (bot/slack/approvals.py `_edit_card`,
    bot/discord/cards.py `clicked_payload`)."""
    entry = entry_of(conn, run_id, call_id)
    if entry is None or entry.get("state") != "done":
        return {}
    return {"result": for_people(str(entry.get("output") or "")), "ok": bool(entry.get("ok"))}
