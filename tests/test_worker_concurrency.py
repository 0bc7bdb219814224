"""`atlas worker --concurrency N`: one real process works many runs at once against the real test Redis and
the demo tracker's SQLite, takes no more jobs than it has slots, and loses no run to a SIGKILL or a SIGTERM."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from rq import Queue, Worker
from rq.registry import StartedJobRegistry

from tests.processes import wait_for, worker_process
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import Turn, call_outputs, reply_calls, reply_text
from tests.tools_dataset import make_dataset
from workers.runs.lease import lease_key
from workers.runs.queueing import submit
from workers.runs.state import RunState
from workers.runs.store import RunStore

STEPS = 3  # get_issue (the tracker's SQLite), search_docs, then the answer


def _question(request: dict[str, Any]) -> str:
    return next(i["content"] for i in request["input"] if i.get("role") == "user")


class PacedModel:
    """A model whose every call takes `pace` seconds (or waits on `gate` from call `gate_from` of a run);
    it records the most calls it held at once, and answers each run with its own question."""

    def __init__(self, pace: float, gate: threading.Event | None = None, gate_from: int = 2) -> None:
        self.pace, self.gate, self.gate_from = pace, gate, gate_from
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.calls: dict[str, int] = {}  # question -> model calls made for it

    def __call__(self, request: dict[str, Any]) -> Turn:
        question, done = _question(request), len(call_outputs(request))
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            self.calls[question] = self.calls.get(question, 0) + 1
        try:
            if self.gate is not None and done + 1 >= self.gate_from:
                self.gate.wait(30)
            time.sleep(self.pace)
        finally:
            with self.lock:
                self.in_flight -= 1
        number = int(question.rsplit(" ", 1)[-1])
        if done == 0:
            return reply_calls([("get_issue", {"issue_id": 1 + number % 5, "include": ["body", "labels"]})])
        if done == 1:
            return reply_calls([("search_docs", {"query": f"retries {number}", "k": 3})])
        return reply_text(f"answer to {question}")


def _env(tmp_path: Path, redis_url: str, model: ScriptedModel, **extra: str) -> dict[str, str]:
    return {"ATLAS_HOME": str(tmp_path / "home"), "REDIS_URL": redis_url, "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
            "ATLAS_QUEUE": f"atlas-{uuid.uuid4().hex[:8]}", "ATLAS_SEMANTIC": "off", **model.env(), **extra}


def _submit(conn: redis.Redis, queue: str, count: int) -> list[RunState]:
    return [submit(conn, queue, f"question number {i}") for i in range(count)]


def _all_final(store: RunStore, runs: list[RunState]) -> Callable[[], list[RunState] | None]:
    def check() -> list[RunState] | None:
        loaded = [store.load(r.id) for r in runs]
        return loaded if all(r.final for r in loaded) else None

    return check


def _assert_each_answered_once(finals: list[RunState], paced: PacedModel) -> None:
    for run in finals:
        assert run.answer == f"answer to {run.question}" and run.stop_reason == "done", run
        assert [s.index for s in run.steps] == [1, 2, 3]
        outputs = [i for i in run.items if i.get("type") == "function_call_output"]
        assert len(outputs) == 2 and f"retries {run.question.rsplit(' ', 1)[-1]}" not in run.answer  # its own calls
    assert all(n == STEPS for n in paced.calls.values()), paced.calls  # no step was worked twice


def test_one_process_works_many_runs_at_once_and_never_more_than_its_slots(tmp_path: Path, redis_url: str) -> None:
    paced = PacedModel(pace=0.15)
    with ScriptedModel(fallback=paced) as model:
        env = _env(tmp_path, redis_url, model)
        conn = redis.Redis.from_url(redis_url)
        store = RunStore(conn)
        runs = _submit(conn, env["ATLAS_QUEUE"], 12)
        started = StartedJobRegistry(env["ATLAS_QUEUE"], connection=conn)
        seen_started, seen_executions = 0, 0
        with worker_process(env, "w-many", "--concurrency", "6"):
            deadline = time.monotonic() + 30
            while not _all_final(store, runs)() and time.monotonic() < deadline:
                seen_started = max(seen_started, started.count)
                workers = Worker.all(queue=Queue(env["ATLAS_QUEUE"], connection=conn))
                if workers:
                    seen_executions = max(seen_executions, workers[0].current_execution_count)
                time.sleep(0.05)
            finals = wait_for(_all_final(store, runs), timeout=1, what="every run to finish")
        model.assert_done()
    _assert_each_answered_once(finals, paced)
    assert paced.peak == 6  # six at once, never a seventh: the worker took no job without a free slot
    assert seen_started <= 6 and seen_executions >= 4  # RQ sees the jobs: in its started registry, on the worker


def test_a_sigkilled_worker_s_runs_are_all_taken_over(tmp_path: Path, redis_url: str) -> None:
    release = threading.Event()
    paced = PacedModel(pace=0.05, gate=release, gate_from=2)
    with ScriptedModel(fallback=paced) as model:
        env = _env(tmp_path, redis_url, model, ATLAS_WORKER_HEARTBEAT_TTL="2", ATLAS_WORKER_MAINTENANCE="1")
        conn = redis.Redis.from_url(redis_url)
        store = RunStore(conn)
        runs = _submit(conn, env["ATLAS_QUEUE"], 6)
        with worker_process(env, "w-killed", "--concurrency", "6") as worker_a:
            wait_for(lambda: paced.in_flight == 6, timeout=20, what="six runs waiting on step 2 in one process")
            worker_a.send_signal(signal.SIGKILL)
            worker_a.wait(timeout=10)
        for run in runs:
            assert [s.index for s in store.load(run.id).steps] == [1]
        paced.calls.clear()
        release.set()
        with worker_process(env, "w-after", "--concurrency", "6"):
            finals = wait_for(_all_final(store, runs), timeout=30, what="another worker to finish every run")
        model.assert_done()
    for run in finals:
        assert run.answer == f"answer to {run.question}" and [s.index for s in run.steps] == [1, 2, 3]
    assert all(n == STEPS - 1 for n in paced.calls.values()), paced.calls  # step 1 was kept, not worked again


def test_a_stopped_worker_saves_each_run_after_its_step_and_hands_it_over(tmp_path: Path, redis_url: str) -> None:
    release = threading.Event()
    paced = PacedModel(pace=0.05, gate=release, gate_from=2)
    with ScriptedModel(fallback=paced) as model:
        env = _env(tmp_path, redis_url, model)
        conn = redis.Redis.from_url(redis_url)
        store = RunStore(conn)
        runs = _submit(conn, env["ATLAS_QUEUE"], 5)
        with worker_process(env, "w-stopped", "--concurrency", "5") as worker_a:
            wait_for(lambda: paced.in_flight == 5, timeout=20, what="five runs in step 2")
            worker_a.send_signal(signal.SIGTERM)
            time.sleep(0.3)  # the stop is in before step 2's replies come back
            release.set()
            assert worker_a.wait(timeout=15) == 0
        for run in runs:
            saved = store.load(run.id)
            assert saved.status == "running" and [s.index for s in saved.steps] == [1, 2]  # step 2 finished, 3 not begun
            assert not conn.exists(lease_key(run.id))  # released, not left to lapse
        assert Queue(env["ATLAS_QUEUE"], connection=conn).count == 5  # queued again for another worker
        with worker_process(env, "w-next", "--concurrency", "5"):
            finals = wait_for(_all_final(store, runs), timeout=20, what="the next worker to finish every run")
        model.assert_done()
    _assert_each_answered_once(finals, paced)
