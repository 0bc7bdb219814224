"""`atlas worker --concurrency N`: one real process works many runs at once against the real test Redis and
the demo tracker's SQLite, takes no more jobs than it has slots, and loses no run to a SIGKILL or a SIGTERM."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue, Worker
from rq.job import Job
from rq.registry import StartedJobRegistry

from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import call_outputs
from tests.standins.turns import Turn, reply_calls, reply_text
from tests.support.processes import wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.runs.lease import LEASE_TTL_SECONDS
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
        self.waiting = 0  # calls held at the gate
        self.calls: dict[str, int] = {}  # question -> model calls made for it

    def __call__(self, request: dict[str, Any]) -> Turn:
        question, done = _question(request), len(call_outputs(request))
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            self.calls[question] = self.calls.get(question, 0) + 1
        try:
            if self.gate is not None and done + 1 >= self.gate_from and not self.gate.is_set():
                with self.lock:
                    self.waiting += 1
                self.gate.wait(30)
                with self.lock:
                    self.waiting -= 1
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


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data folder and home for the module: its indexes are built once, not by every test's first worker."""
    root = tmp_path_factory.mktemp("concurrency")
    make_dataset(root / "data")
    return root


def _env(place: Path, redis_url: str, model: ScriptedModel, **extra: str) -> dict[str, str]:
    return {
        "ATLAS_HOME": str(place / "home"),
        "REDIS_URL": redis_url,
        "ATLAS_DATA": str(place / "data"),
        "ATLAS_QUEUE": f"atlas-{uuid.uuid4().hex[:8]}",
        "ATLAS_SEMANTIC": "off",
        **model.env(),
        **extra,
    }


@dataclass
class Queued:
    """Twelve runs on the test's own queue, and where to watch them."""

    env: dict[str, str]
    conn: redis.Redis
    store: RunStore
    queue: Queue
    runs: list[RunState]


def _queued(place: Path, redis_url: str, model: ScriptedModel, **extra: str) -> Queued:
    env = _env(place, redis_url, model, **extra)
    conn = redis.Redis.from_url(redis_url)
    runs = [submit(conn, env["ATLAS_QUEUE"], f"question number {i}") for i in range(12)]
    return Queued(env, conn, RunStore(conn), Queue(env["ATLAS_QUEUE"], connection=conn), runs)


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


def _held(queue: Queue, name: str) -> set[str]:
    """The run ids whose jobs the worker `name` is executing, as RQ records it."""
    (worker,) = [w for w in Worker.all(queue=queue) if w.name == name]
    return {e.job_id.removeprefix("atlas-run-") for e in worker.get_current_executions(refresh=True)}


def test_each_process_works_many_runs_at_once_never_more_than_its_slots_and_hands_them_over_on_stop(
    place: Path, redis_url: str
) -> None:
    """Two processes of six slots each take six of twelve runs; a SIGTERM to one makes each of its runs
    finish its step, save and release its lease; the other process continues them."""
    release = threading.Event()
    paced = PacedModel(pace=0.1, gate=release, gate_from=2)
    with ScriptedModel(fallback=paced) as model:
        q = _queued(place, redis_url, model)
        env, conn, store, queue, runs = q.env, q.conn, q.store, q.queue, q.runs
        with (
            worker_process(env, "w-stopped", "--concurrency", "6") as worker_a,
            worker_process(env, "w-on", "--concurrency", "6"),
        ):
            wait_for(lambda: paced.waiting == 12, timeout=30, what="both processes to hold six runs in step 2")
            workers = {w.name: w for w in Worker.all(queue=queue)}  # real RQ workers, with executions RQ can see
            assert {n: (w.current_execution_count, w.get_state()) for n, w in workers.items()} == {
                "w-stopped": (6, "busy"),
                "w-on": (6, "busy"),
            }
            assert StartedJobRegistry(queue=queue).count == 12
            handed = _held(queue, "w-stopped")
            worker_a.send_signal(signal.SIGTERM)
            time.sleep(0.3)  # the stop is in before step 2's replies come back
            stopped_at = time.monotonic()
            release.set()
            assert worker_a.wait(timeout=15) == 0
            finals = wait_for(_all_final(store, runs), timeout=30, what="the other process to finish every run")
            took = time.monotonic() - stopped_at
        model.assert_done()
    _assert_each_answered_once(finals, paced)  # step 2 of the handed-over runs was not worked again
    assert paced.peak == 12  # never a seventh call at once in a process: no job was taken without a free slot
    jobs = {r.id: Job.fetch(f"atlas-run-{r.id}", connection=conn) for r in runs}
    assert len(handed) == 6 and all(jobs[r].number_of_retries == 1 and jobs[r].worker_name == "w-on" for r in handed)
    assert took < LEASE_TTL_SECONDS  # their leases were released, not left to lapse
    log = (place / "w-stopped.log").read_text()
    assert all(f"[atlas-run-{r}]: run {r}: saved after its step; handed over" in log for r in handed), log[-2000:]


def test_a_sigkilled_worker_s_runs_are_all_taken_over(place: Path, redis_url: str) -> None:
    """A full process's runs are recovered by another full process, from their last saved step."""
    release = threading.Event()
    paced = PacedModel(pace=0.05, gate=release, gate_from=2)
    with ScriptedModel(fallback=paced) as model:
        q = _queued(place, redis_url, model, ATLAS_WORKER_HEARTBEAT_TTL="2", ATLAS_WORKER_MAINTENANCE="1")
        env, store, queue, runs = q.env, q.store, q.queue, q.runs
        with (
            worker_process(env, "w-killed", "--concurrency", "6") as worker_a,
            worker_process(env, "w-lives", "--concurrency", "6"),
        ):
            wait_for(lambda: paced.waiting == 12, timeout=30, what="both processes to hold six runs in step 2")
            lost = _held(queue, "w-killed")
            worker_a.send_signal(signal.SIGKILL)
            worker_a.wait(timeout=10)
            assert all([s.index for s in store.load(r).steps] == [1] for r in lost)
            release.set()
            finals = wait_for(_all_final(store, runs), timeout=30, what="the live process to finish every run")
        model.assert_done()
    assert len(lost) == 6
    for run in finals:
        assert run.answer == f"answer to {run.question}" and [s.index for s in run.steps] == [1, 2, 3]
    redone = {q: n for q, n in paced.calls.items() if n != STEPS}
    assert {f"question number {i}" for i in range(12) if runs[i].id in lost} == set(redone)  # the killed step 2, again
    assert set(redone.values()) == {STEPS + 1}  # step 1 was kept, not worked again
