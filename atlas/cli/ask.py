"""`atlas ask`: submit a run, make sure a worker serves it, show progress, print the answer.

The run goes to the queue named after this shell's settings fingerprint (`atlas-<fingerprint>`), and
the background worker started for it serves only that queue: a worker left over from a shell with
another model, data folder or budget never sees the run, and exits after its idle time.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import redis
from rq import Queue, Worker

from atlas import home
from atlas.connection import connect
from atlas.settings import Settings
from workers.runs import record_json
from workers.runs.queueing import enqueue, settings_queue
from workers.runs.record_json import FinishedRun

if TYPE_CHECKING:  # a warm ask reads and writes the record as JSON: no pydantic (workers/runs/record_json.py)
    from workers.runs.state import RunState

WORKER_IDLE_EXIT_SECONDS = 600


def worker_log(settings: Settings) -> Path:
    """Where a background worker started by `ask` writes (checked: ATLAS_HOME must be a writable folder)."""
    return home.usable(settings.home) / "logs" / "worker.log"


def ensure_worker(settings: Settings, queue: Queue) -> subprocess.Popen[bytes] | None:
    """Start a background worker for `queue` under these settings unless one serves it; the started process, or None.

    The data is checked only when a worker is to be started: bad data is one line now, not a worker
    that dies at start. A worker already serving the queue loaded the same data (its queue is named
    after the settings), so a warm ask skips the 0.3 s of building the docs index."""
    if served(queue):
        return None
    from tools import open_corpus  # only here: the tools package costs a warm ask 60 ms of imports

    open_corpus(settings.data_dir, settings.home)
    log_path = worker_log(settings)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "atlas.cli.main",
                "worker",
                "--queue",
                queue.name,
                "--max-idle",
                str(WORKER_IDLE_EXIT_SECONDS),
                "--with-scheduler",
            ],  # the only worker of its queue: it schedules for it too
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=os.environ.copy(),
        )


def served(queue: Queue) -> bool:
    """A live worker serves `queue`: one of its registered workers' keys still exists. What RQ's `Worker.all` checks
    first, without building and refreshing each worker (a warm ask's first Redis calls: ~1 ms of its CPU)."""
    conn = queue.connection
    return any(conn.exists(key) for key in Worker.all_keys(queue=queue))


def ask(settings: Settings, question: str, *, as_json: bool, timeout: float) -> int:
    if not question.strip():
        print('atlas ask: give a question, e.g. atlas ask "What does ORB-1202 mean?"', file=sys.stderr)
        return 2
    conn = connect(settings)
    queue = Queue(settings_queue(settings.queue_name, settings.fingerprint), connection=conn)
    started = ensure_worker(settings, queue)
    if started:
        _say(
            f"started a background worker for these settings ({answered_by(settings)}; it exits after 10 idle minutes)"
        )
    record = record_json.new_record(question, os.environ.get("USER"), settings.fingerprint)
    record_json.save_new(conn, record)  # what `submit` saves and queues, without building the run's model
    enqueue(queue, record["id"])
    _load_answer_view()
    final = _follow(conn, record["id"], timeout, started, worker_log(settings))
    if isinstance(final, WorkerDied):
        print(f"atlas ask: the background worker exited at start (code {final.code}): {final.why}", file=sys.stderr)
        return 1
    if final is None:
        print(
            f"atlas ask: no answer within {timeout:.0f}s (run {record['id']} is still queued or running)",
            file=sys.stderr,
        )
        return 1
    if as_json or final.get("status") == "awaiting_approval":  # the whole record, or its cards: the run's model
        from workers.runs.state import RunState

        run = RunState.model_validate_json(json.dumps(final))  # as RunStore.load reads it
        print(json.dumps(result_json(run), indent=2) if as_json else render(run, settings))
        return 0 if run.status in ("done", "partial") else 1
    done = FinishedRun.of(final)
    print(render(done, settings))
    return 0 if done.status in ("done", "partial") else 1


def _load_answer_view() -> None:
    """Import what printing an answer takes while the worker answers the run (about 7 ms of a warm ask's CPU, on
    the other core from the worker's): `render` then finds it loaded."""
    for name in ("bot.plain.views.answer", "workers.messages.answer"):
        importlib.import_module(name)


@dataclass(frozen=True)
class WorkerDied:
    """The worker `ask` started exited before taking the run: its exit code and its last words."""

    code: int
    why: str


def _follow(
    conn: redis.Redis,
    run_id: str,
    timeout: float,
    started: subprocess.Popen[bytes] | None = None,
    log: Path | None = None,
) -> dict[str, Any] | WorkerDied | None:
    """Print each step and tool call as it happens; return the run's record once it is final or paused, or how the
    worker started for it died while the run was still queued (instead of waiting out the timeout)."""
    deadline = time.monotonic() + timeout
    after = "0"
    while time.monotonic() < deadline:
        for entry_id, event in record_json.events(conn, run_id, after=after, block_ms=500):
            after = entry_id
            _progress(event)
        run = record_json.load(conn, run_id)
        status = run.get("status", "queued")
        if status in record_json.FINAL_STATUSES or status == "awaiting_approval":
            return run
        if started is not None and started.poll() is not None and status == "queued":
            return WorkerDied(started.returncode, _last_words(log))
    return None


def _last_words(log: Path | None) -> str:
    """The last line the worker wrote (the CLI writes its failure as one line), to say why it died."""
    try:
        lines = [line for line in (log.read_text(errors="replace").splitlines() if log else []) if line.strip()]
    except OSError:
        lines = []
    return lines[-1].strip()[:500] if lines else "it wrote nothing"


def _progress(event: dict[str, Any]) -> None:
    kind = event.get("kind")
    if kind == "step":
        _say(f"step {event.get('step')}")
    elif kind == "tool" and event.get("state") == "started":
        _say(f"  -> {event.get('name')}({event.get('arguments', '')})")
    elif kind == "tool" and event.get("state") == "failed":
        _say(f"  !! {event.get('name')} returned an error")
    elif kind == "retrying":
        _say(f"retrying: {event.get('reason')}")
    elif kind == "paused":
        _say("paused: a proposed action needs a maintainer's approval")


def answered_by(settings: Settings) -> str:
    """`model gpt-6-luna, data /path`: what answers under these settings."""
    return f"model {settings.answering_model}, data {settings.data_dir}"


def _say(text: str) -> None:
    print(f"[atlas] {text}", file=sys.stderr, flush=True)


def result_json(run: RunState) -> dict[str, Any]:
    return {
        "run_id": run.id,
        "answer": run.answer,
        "stop_reason": run.stop_reason,
        "partial": run.partial,
        "status": run.status,
        "steps": [s.model_dump() for s in run.steps],
        "usage": {**run.usage.model_dump(), "total_tokens": run.usage.total},
        "cost_usd": run.cost_usd,
        "sources": run.sources,
        "model": run.answered_by.model if run.answered_by else None,
        "data_dir": run.answered_by.data_dir if run.answered_by else None,
    }


def render(run: RunState | FinishedRun, settings: Settings | None = None) -> str:
    """What `ask` prints: the run rendered as plain text (bot/plain/views/), then which model and data answered.
    Imported here: the message values reach the tools package, which queueing an ask must not import; an
    approval's card values only for a paused run (the tools package costs an answer's print ~0.1 s of imports)."""
    if run.status == "awaiting_approval" and not isinstance(run, FinishedRun):  # its cards: the run's model
        from bot.plain.views import approval
        from workers.messages.approval import view

        return approval.paused_text([view(run, call, None, 0.0) for call in run.pending])
    from bot.plain.views import answer
    from workers.messages.answer import answer_of

    docs, issues = (settings.docs_base_url, settings.issues_base_url) if settings is not None else (None, None)
    lines = [answer.answer_text(answer_of(run, docs_base_url=docs, issues_base_url=issues))]
    if run.answered_by:
        lines.append(f"-- answered by model {run.answered_by.model}, data {run.answered_by.data_dir}")
    return "\n".join(lines)
