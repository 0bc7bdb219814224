"""Queue overhead: enqueue to result through RQ and a real worker, with an instant scripted model.

Side by side, in one run: Atlas's worker (RQ's SimpleWorker with a heartbeat thread, everything
loaded once per process) against RQ's default Worker (a fresh work-horse interpreter per job,
started with plain `rq worker`, which re-imports the SDK and re-opens the indexes for every job).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import redis

from atlas import embedded_redis
from bench.measure import percentile
from bench.report import Table
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import reply_text
from workers.runs.queueing import submit
from workers.runs.store import RunStore

SEQUENTIAL = 60
BURST = 100
REPO = Path(__file__).resolve().parent.parent


def _start(kind: str, env: dict[str, str], url: str) -> subprocess.Popen[bytes]:
    if kind == "atlas":
        cmd = [sys.executable, "-m", "atlas.cli.main", "worker", "--name", "bench-atlas"]
    else:
        cmd = [
            sys.executable,
            "-m",
            "rq.cli",
            "worker",
            "--url",
            url,
            "--worker-class",
            "rq.Worker",
            "-n",
            "bench-rq",
            "atlas",
        ]
    return subprocess.Popen(
        cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def _wait_final(store: RunStore, run_id: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if store.load(run_id).final:
            return
        time.sleep(0.002)
    raise TimeoutError(run_id)


def _measure(kind: str, conn: redis.Redis, env: dict[str, str], url: str, sequential: int, burst: int) -> list[object]:
    conn.flushall()
    proc = _start(kind, env, url)
    store = RunStore(conn)
    try:
        _wait_final(store, submit(conn, "atlas", "warm up").id)  # the worker is up and has loaded what it loads
        latencies = []
        for n in range(sequential):
            start = time.perf_counter()
            run = submit(conn, "atlas", f"q{n}")
            _wait_final(store, run.id)
            latencies.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        ids = [submit(conn, "atlas", f"b{n}").id for n in range(burst)]
        for run_id in ids:
            _wait_final(store, run_id, timeout=600)
        rate = burst / (time.perf_counter() - start)
        rss = sum(
            p.memory_info().rss for p in [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
        )
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return [
        kind,
        sequential,
        round(percentile(latencies, 0.5), 1),
        round(percentile(latencies, 0.95), 1),
        round(rate, 1),
        round(rss / 2**20, 1),
    ]


def run() -> list[Table]:
    with tempfile.TemporaryDirectory() as tmp, ScriptedModel(fallback=reply_text("ok")) as model:
        home = Path(tmp) / "home"
        url = embedded_redis.ensure_running(home)
        try:
            conn = redis.Redis.from_url(url)
            env = {
                **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")},
                **model.env(),
                "REDIS_URL": url,
                "ATLAS_HOME": str(home),
            }
            rows = [
                _measure("atlas", conn, env, url, SEQUENTIAL, BURST),
                _measure("rq-default", conn, env, url, SEQUENTIAL // 4, BURST // 4),
            ]
        finally:
            embedded_redis.stop(home)
    atlas_row = rows[0]
    return [
        Table(
            title="Queue overhead: submit -> final run state, instant scripted model, one worker",
            columns=["worker", "runs", "p50 ms", "p95 ms", "runs/s (burst)", "worker RSS MiB"],
            rows=rows,
            goal="the worker class Atlas uses beats a fork-per-job worker on latency and throughput",
            met=atlas_row[2] < rows[1][2] and atlas_row[4] > rows[1][4],
            notes=[
                "atlas = AtlasWorker (RQ SimpleWorker + heartbeat thread): openai, "
                "tokenizer ranks and indexes load once per process",
                "rq-default = RQ's Worker: a new work-horse interpreter per job "
                "(RSS counts the parent and any live horse)",
                "latency includes one model round trip to the loopback stand-in, "
                "Redis writes per step and the worker's dequeue",
            ],
        )
    ]
