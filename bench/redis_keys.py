"""What a finished run leaves in Redis (issue 29): `python -m bench redis_keys` (about 20 s).

Three Slack mentions through the real bot, one `atlas worker` process, the scripted Responses API and a
fresh embedded valkey: a one-step answer, a 3-step run (search_docs, get_issue, the answer) and a run whose
add_labels call is approved on its card (approvals, the ledger and the audit log). Before and after each
run every key is read with MEMORY USAGE and TTL; a run's keys are the new ones plus what shared keys (the
audit stream, RQ's registries) grew by. The steady state is bytes x 10,000 runs a day x days each key lives.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from atlas import embedded_redis
from atlas.settings import Settings
from bench.report import Table
from tests.standins.responses_api import Call, reply_calls, reply_text
from tests.support.approvals_harness import MAINTAINER, Stack, stack
from tests.support.processes import wait_for
from workers.console_data import index_filing

AGAIN = "3-step run, citing what one cited before"
RUNS_PER_DAY = 10_000
DAYS = 30
SMALL_REDIS_BYTES = 1024**3  # "a small Redis": a 1 GiB instance
DAY = 86400
AUDIT_DAYS = Settings.audit_retention_days

Snapshot = dict[str, tuple[int, int]]  # key -> (MEMORY USAGE bytes, TTL seconds; -1: none)


def snapshot(conn: redis.Redis) -> Snapshot:
    """Every key's bytes (MEMORY USAGE, SAMPLES 0: exact) and TTL."""
    found: Snapshot = {}
    for raw in conn.scan_iter(count=1000):
        key = raw.decode()
        found[key] = (int(conn.memory_usage(key, samples=0) or 0), int(conn.ttl(key)))
    return found


def left_by(before: Snapshot, after: Snapshot, run_id: str) -> list[tuple[str, int, int]]:
    """(key shape, bytes, TTL) of what one run added: new keys whole, shared keys by what they grew."""
    rows = []
    for key, (size, ttl) in sorted(after.items()):
        grown = size - before[key][0] if key in before else size
        if grown > 0 and not key.startswith(
            ("rq:worker", "rq:workers", "rq:scheduler", "rq:wip", "rq:queues", "rq:clean")
        ):
            rows.append(
                (shape(key, run_id) + ("" if key not in before else " (growth)"), grown, MEMBER_LIVES.get(key, ttl))
            )
    return rows


# Shared sorted sets have no TTL, but RQ removes a job's member: from the finished registry with its result
# (1 h), from the scheduled registry when the scheduler queues the job (the approval's deadline, 24 h).
MEMBER_LIVES = {"rq:finished:atlas": 3600, "rq:scheduled:atlas": Settings.approval_ttl_seconds}


def audit_per_run(conn: redis.Redis, entries: int, copies: int = 200) -> int:
    """Bytes the audit stream grows by per run at scale: the last run's `entries` entries appended `copies`
    more times (a stream preallocates its first node, so one run's growth overstates it)."""
    from workers.approvals.audit import AUDIT_KEY

    last: list[tuple[bytes, dict[Any, Any]]] = conn.xrevrange(AUDIT_KEY, count=entries)[::-1]  # type: ignore[index,assignment]  # redis-py types it loosely
    before = int(conn.memory_usage(AUDIT_KEY, samples=0) or 0)
    for _ in range(copies):
        for _, fields in last:
            conn.xadd(AUDIT_KEY, fields)
    return round((int(conn.memory_usage(AUDIT_KEY, samples=0) or 0) - before) / copies)


def shape(key: str, run_id: str) -> str:
    key = key.replace(run_id, "<run>")
    key = re.sub(r"\d{10}\.\d{6}", "<ts>", key)
    return re.sub(r"atlas-run-<run>[-\w]*", "<run job>", key)


def lives(ttl: int) -> str:
    if ttl < 0:
        return "no TTL"
    return f"{round(ttl / DAY)} d" if ttl >= DAY else f"{round(ttl / 3600)} h" if ttl >= 3600 else f"{ttl} s"


def steady_bytes(rows: list[tuple[str, int, int]]) -> float:
    """Bytes held at steady state at RUNS_PER_DAY: each key counted for the days it lives (the audit stream:
    its default retention; any other key with no TTL: DAYS, and it shows as "no TTL" in the table)."""

    def days(key: str, ttl: int) -> float:
        return ttl / DAY if ttl >= 0 else AUDIT_DAYS if key.startswith("atlas:audit") else DAYS

    return sum(size * RUNS_PER_DAY * days(key, ttl) for key, size, ttl in rows)


def _measure(s: Stack, ask: Callable[[], str]) -> list[tuple[str, int, int]]:
    before = snapshot(s.conn)
    run_id = ask()
    s.wait_final(run_id)
    wait_for(lambda: _idle(s.conn, run_id), what="the run's jobs to end")  # a run is final just before its job ends
    # The console's pending list is a queue its saver's timer empties within 5 s: filed now, the run's share of the
    # console's index is what stays (counted before as the pending entry, with no TTL, for 30 days).
    index_filing.flush(s.conn)
    return left_by(before, snapshot(s.conn), run_id)


def _idle(conn: redis.Redis, run_id: str) -> bool:
    """No job queued or working, and the run's lease released: what is left is what stays."""
    from rq import Queue
    from rq.registry import StartedJobRegistry

    queue = Queue("atlas", connection=conn)
    return (
        queue.count == 0
        and not StartedJobRegistry(queue=queue).get_job_ids()
        and not conn.exists(f"atlas:run:{run_id}:lease")
    )


def _one_step(s: Stack) -> str:
    s.model.script(reply_text("Retries back off exponentially."))
    thread = s.ask("how do retries back off?", ts="1700000100.000100")
    return _wait_run(s, thread)


def _three_steps(s: Stack, ts: str = "1700000200.000100") -> str:
    s.model.script(
        reply_calls([Call("search_docs", {"query": "retries and backoff", "k": 3}, "call_s")]),
        reply_calls([Call("get_issue", {"issue_id": 3, "include": ["body", "labels"]}, "call_i")]),
        reply_text("Retries back off exponentially; see #3 and the retries page."),
    )
    thread = s.ask("how do retries back off, and what does #3 say?", ts=ts)
    return _wait_run(s, thread)


def _approved(s: Stack) -> str:
    s.model.script(
        reply_calls([Call("add_labels", {"issue_id": 3, "labels": ["bug"]}, "call_l")], text="#3 is a bug."),
        reply_text("I labeled #3 as a bug."),
    )
    thread = s.ask("please label #3 as a bug", ts="1700000300.000100")
    (card,) = s.cards(thread)
    run_id = s.run_of(card).id
    s.click(card, MAINTAINER)
    return run_id


def _wait_run(s: Stack, thread_ts: str) -> str:
    from workers.runs.store import RunStore

    store = RunStore(s.conn)

    def find() -> str | None:
        for raw in s.conn.scan_iter(match="atlas:run:*", count=1000):
            key = raw.decode()
            if key.count(":") == 2:
                run = store.load(key.split(":")[2])
                if run.origin.thread_ts == thread_ts or run.origin.message_ts == thread_ts:
                    return run.id
        return None

    return str(wait_for(find, what=f"the run of thread {thread_ts}"))


def run() -> list[Table]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        url = embedded_redis.ensure_running(root / "redis")
        try:
            with stack(root, url) as s, s.worker("bench-redis-keys"):
                measured = {
                    "one-step answer": _measure(s, lambda: _one_step(s)),
                    "3-step run": _measure(s, lambda: _three_steps(s)),
                    # what the goal is judged on: a source's watch key is made by the first run citing it, and
                    # 10,000 runs a day over one project's docs and issues cite the same sources again and again
                    AGAIN: _measure(s, lambda: _three_steps(s, ts="1700000250.000100")),
                    "approved add_labels (2 steps)": _measure(s, lambda: _approved(s)),
                }
                per_run = audit_per_run(s.conn, entries=3)  # request, decision, result
                measured["approved add_labels (2 steps)"] = [
                    (key, per_run, ttl) if key.startswith("atlas:audit") else (key, size, ttl)
                    for key, size, ttl in measured["approved add_labels (2 steps)"]
                ]
        finally:
            embedded_redis.stop(root / "redis")
    return [table(measured)]


def table(measured: dict[str, list[tuple[str, int, int]]]) -> Table:
    rows: list[list[object]] = []
    for name, found in measured.items():
        rows += [[name, key, size, lives(ttl)] for key, size, ttl in found]
        rows.append(
            [
                name,
                "all of it",
                sum(size for _, size, _ in found),
                f"{steady_bytes(found) / 1024**2:.0f} MiB at steady state",
            ]
        )
    questions = steady_bytes(measured[AGAIN])
    return Table(
        title=(
            "Redis bytes a finished run leaves (MEMORY USAGE) and how long each key "
            f"lives; steady state at {RUNS_PER_DAY:,} runs a day"
        ),
        columns=["run", "key", "bytes", "lives"],
        rows=rows,
        goal=(
            f"{RUNS_PER_DAY:,} 3-step questions a day, each kept {DAYS} days, fit "
            f"in a 1 GiB Redis ({questions / 1024**2:.0f} MiB)"
        ),
        met=questions <= SMALL_REDIS_BYTES,
        notes=[
            "steady state: bytes x runs a day x days the key lives (the audit "
            "stream: ATLAS_AUDIT_RETENTION_DAYS, 90 by default)",
            "the audit row is the stream's growth per approved run at scale (3 entries, measured over 200 copies)",
            "the goal is judged on the second 3-step run: a cited source's watch key is made once, by the first run"
            " that cites it, then grows by each run that cites it again; the console's pending filings are filed"
            " first (its saver's timer does within 5 s), so the index's growth is counted, not the queue's entry",
            "rq:finished and rq:scheduled are shared sorted sets: RQ removes a "
            "run's member after 1 h and at the approval deadline",
        ],
    )
