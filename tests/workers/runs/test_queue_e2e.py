"""Runs through RQ with real worker processes: `atlas ask --json`, hand-over and a SIGKILLed worker."""

from __future__ import annotations

import json
import os
import signal
import threading
import uuid
from pathlib import Path

import redis
from rq import Queue, Worker
from rq.job import Job

from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import reply_calls, reply_text
from tests.support.paths import REPO
from tests.support.processes import atlas_command, wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.runs.queueing import enqueue, job_id, submit
from workers.runs.store import RunStore


def _env(tmp_path: Path, redis_url: str, model: ScriptedModel | None = None, **extra: str) -> dict[str, str]:
    """The test's own queue: no other process on the shared test Redis can take its jobs."""
    env = {
        "ATLAS_HOME": str(tmp_path / "home"),
        "REDIS_URL": redis_url,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_QUEUE": f"atlas-{uuid.uuid4().hex[:8]}",
    }
    if model is not None:
        env.update(model.env())
    env.update(extra)
    return env


def test_atlas_ask_json_end_to_end_through_a_worker(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(
        reply_calls([("search_docs", {"query": "ORB-1202", "k": 3})]),
        reply_text("ORB-1202 is `PermanentError`: not retried (see error-codes)."),
    )
    env = _env(tmp_path, redis_url, scripted_model)
    conn = redis.Redis.from_url(redis_url)
    try:
        done = atlas_command("ask", "--json", "What does ORB-1202 mean?", env=env, timeout=60)
        started = Worker.all(connection=conn)
    finally:
        for worker in Worker.all(connection=conn):  # the background worker `ask` started for itself
            os.killpg(worker.pid, signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    assert len(started) == 1 and "started a background worker" in done.stderr
    result = json.loads(done.stdout)
    assert result["answer"].startswith("ORB-1202 is `PermanentError`")
    assert result["stop_reason"] == "done" and result["partial"] is False
    assert result["sources"] == ["error-codes"]
    assert len(result["steps"]) == 2 and result["steps"][0]["tools"] == ["search_docs"]
    assert result["usage"]["input_tokens"] > 0 and result["cost_usd"] > 0
    assert "search_docs" in done.stderr  # progress was shown while the run worked


def test_duplicate_enqueue_of_a_run_is_refused(redis_conn: redis.Redis) -> None:
    run = submit(redis_conn, "atlas-test", "q")
    queue = Queue("atlas-test", connection=redis_conn)
    again = enqueue(queue, run.id)
    assert again.id == job_id(run.id) and queue.count == 1


def test_a_run_paused_in_one_process_is_continued_by_another(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    """Step 1 runs in worker A's process; the run is then taken over by worker B from Redis alone."""
    release = threading.Event()

    def slow_second_step(request: dict) -> object:
        release.wait(30)
        return reply_text("never delivered: worker A is gone")

    scripted_model.script(
        reply_calls([("calculate", {"expression": "6*7"})]), slow_second_step, reply_text("42, after a hand-over.")
    )
    env = _env(tmp_path, redis_url, scripted_model, ATLAS_WORKER_HEARTBEAT_TTL="3", ATLAS_WORKER_MAINTENANCE="2")
    conn = redis.Redis.from_url(redis_url)
    store = RunStore(conn)
    run = submit(conn, env["ATLAS_QUEUE"], "What is 6*7?")
    with worker_process(env, "w-a") as worker_a:
        try:
            wait_for(lambda: len(scripted_model.requests) >= 2, timeout=30, what="worker A to reach step 2")
        except AssertionError as exc:  # say what worker A was doing, so a failure can be diagnosed
            raise AssertionError(f"{exc}; worker A's log:\n{(tmp_path / 'w-a.log').read_text()[-3000:]}") from None
        assert Job.fetch(job_id(run.id), connection=conn).worker_name == "w-a"  # and not some other process
        saved = store.load(run.id)
        assert [s.index for s in saved.steps] == [1]
        worker_a.send_signal(signal.SIGKILL)  # dies mid-step, before step 2 is saved
        worker_a.wait(timeout=10)
    release.set()
    with worker_process(env, "w-b"):
        final = wait_for(lambda: (r := store.load(run.id)).final and r, timeout=60, what="worker B to finish the run")
    assert final.answer == "42, after a hand-over." and final.stop_reason == "done"
    assert [s.index for s in final.steps] == [1, 2]  # step 1 was not executed again
    bodies = scripted_model.bodies()
    assert len(bodies) == 3
    assert bodies[2]["input"] == bodies[1]["input"]  # B resumed from exactly the state A saved
    outputs = [i for i in bodies[2]["input"] if i["type"] == "function_call_output"]
    assert len(outputs) == 1 and "42" in outputs[0]["output"]


def test_only_the_worker_asked_to_runs_rq_s_scheduler(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    """One scheduler per deployment: a plain `atlas worker` answers runs without RQ's scheduler child
    (58 MiB and a few Redis commands a second each); `--with-scheduler` takes the queue's scheduler lock."""
    import psutil

    scripted_model.script(reply_text("answered without a scheduler"))
    env = _env(tmp_path, redis_url, scripted_model)
    conn = redis.Redis.from_url(redis_url)
    lock = f"rq:scheduler-lock:{env['ATLAS_QUEUE']}"
    with worker_process(env, "plain") as plain:
        run = submit(conn, env["ATLAS_QUEUE"], "q")
        final = wait_for(lambda: (r := RunStore(conn).load(run.id)).final and r, timeout=60, what="the answer")
        assert final.answer == "answered without a scheduler"
        assert conn.get(lock) is None and psutil.Process(plain.pid).children(recursive=True) == []
    with worker_process(env, "scheduling", "--with-scheduler") as scheduling:
        wait_for(lambda: conn.get(lock) is not None, timeout=60, what="the scheduler lock")
        # RQ takes the lock in the worker, then forks the scheduler child: wait for the child too
        assert wait_for(
            lambda: psutil.Process(scheduling.pid).children(recursive=True), timeout=30, what="the scheduler child"
        )
    scripted_model.assert_done()


def test_a_run_is_queued_by_name_without_importing_the_agent(redis_url: str) -> None:
    """`atlas ask` queues `continue_run` by its dotted name: the job is the one a worker runs, and
    neither ask nor queueing imports openai, the agent loop or the tools (about 0.4 s of every ask)."""
    import subprocess
    import sys

    script = (
        "import sys, redis\n"
        "import atlas.cli.main, atlas.cli.ask\n"
        "from workers.runs.queueing import submit\n"
        f"run = submit(redis.Redis.from_url({redis_url!r}), 'atlas-by-name', 'q')\n"
        "print(run.id, sorted(m for m in ('openai', 'workers.jobs.runs', "
        "'workers.agent.loop', 'tools') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    run_id, imported = done.stdout.split(" ", 1)
    assert imported.strip() == "[]"
    from workers.jobs import runs as jobs

    job = Job.fetch(job_id(run_id), connection=redis.Redis.from_url(redis_url))
    assert job.func is jobs.continue_run and job.args == (run_id,)
    assert job.failure_callback is jobs.on_job_failure and job.retries_left == 2
