"""The worker's hot paths against their floors, side by side in one run (goals are ratios, bench/ratios.py).

- Worker CPU per run, instant model: the CPU seconds `atlas worker` spends per queued run, against
  the same worker process running a no-op job (RQ's lifecycle plus Atlas's heartbeat thread).
- Redis commands per one-step Slack run (mention -> answer, web and worker together, from
  `INFO commandstats`), against RQ's own lifecycle for a no-op job (enqueue, dequeue, finish).
- `atlas ask` warm wall time (a worker already serves the queue), against `python -c 'import redis, rq'`.
Memory (RSS) of the worker, a `--with-scheduler` worker and the web process is printed beside.
"""

from __future__ import annotations

import functools
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import openai
import psutil
from rq import Queue, Worker
from slack_sdk import WebClient

from bench.hot_paths_meter import Commands, batch, idle_rate, quiet
from bench.measure import wait
from bench.ratios import Ratio, measure, memory_table, ratio_table, rss_mib
from bench.report import Table
from bench.slack_rig import ANSWER_TEXT, REPO, Stack, _answer_posted, _stack
from tests.standins.slack_events import mention
from tests.support.processes import atlas_process
from workers.runs.queueing import submit
from workers.runs.store import RunStore

ROUNDS = 3  # interleaved rounds; the table shows medians
# The kernel counts a process's CPU in 10 ms ticks: 20 no-op jobs of ~3 ms are 6 ticks, so rounding
# alone moved the floor, and the ratio, by about a sixth between rounds. 60 make it about a twentieth.
RUNS_PER_ROUND = 60
ASKS_PER_ROUND = 3
NOOP = "bench.hot_paths.noop"
IO_FLOOR = "bench.hot_paths.io_floor"


def noop() -> None:
    """The floor's job: nothing, so what it costs is RQ's lifecycle and the worker's own."""


@functools.cache
def _io_clients(slack_url: str, token: str, model_url: str) -> tuple[WebClient, openai.OpenAI]:
    """Kept per worker process, as Atlas's worker keeps its clients."""
    return WebClient(token=token, base_url=slack_url), openai.OpenAI(api_key="bench", base_url=model_url)


def io_floor(slack_url: str, token: str, model_url: str, channel: str, thread_ts: str) -> None:
    """The second floor's job: the requests any one-step Slack run must make, through the same clients
    and nothing else: one model call, then the answer posted (a run with no tool call shows no progress
    message: bot/slack/progress.py)."""
    slack, model = _io_clients(slack_url, token, model_url)
    model.post("/responses", body={"model": "floor", "input": "q", "store": False}, cast_to=object)
    slack.chat_postMessage(channel=channel, thread_ts=thread_ts, text=ANSWER_TEXT)


def _slack_runs(stack: Stack, meter: Commands, offset: int) -> Callable[[], None]:
    def body() -> None:
        finished = Queue("atlas", connection=stack.conn).finished_job_registry
        before = meter.poll(lambda: finished.count + 1, "the finished count") - 1
        for i in range(RUNS_PER_ROUND):
            ts = f"{1_700_000_000 + offset + i}.000100"
            reply = stack.send.event(mention(f"What does ORB-1202 mean? ({offset + i})", channel="C0HOT", ts=ts))
            assert reply.status == 200, reply
            wait(lambda ts=ts: _answer_posted(stack.api, ts), "the answer", interval=0.002)
        meter.poll(lambda: finished.count >= before + RUNS_PER_ROUND, "jobs to finish")

    return body


def _queued_runs(stack: Stack, meter: Commands, offset: int) -> Callable[[], None]:
    def body() -> None:
        store = RunStore(stack.conn)
        for i in range(RUNS_PER_ROUND):
            run = submit(stack.conn, "atlas", f"q{offset + i}")
            meter.poll(lambda run=run: store.load(run.id).final, "the run")

    return body


def _noops(stack: Stack, meter: Commands) -> Callable[[], None]:
    def body() -> None:
        queue = Queue("atlas", connection=stack.conn)
        for _ in range(RUNS_PER_ROUND):
            job = queue.enqueue(NOOP)
            meter.poll(lambda job=job: job.get_status(refresh=True) == "finished", "the no-op job")

    return body


def _io_jobs(stack: Stack, meter: Commands, offset: int) -> Callable[[], None]:
    def body() -> None:
        queue = Queue("atlas", connection=stack.conn)
        args = (stack.env["SLACK_API_URL"], stack.env["SLACK_BOT_TOKEN"], stack.env["OPENAI_BASE_URL"], "C0HOT")
        for i in range(RUNS_PER_ROUND):
            job = queue.enqueue(IO_FLOOR, *args, f"{1_800_000_000 + offset + i}.000100")
            meter.poll(lambda job=job: job.get_status(refresh=True) == "finished", "the I/O floor job")

    return body


def _worker_paths(stack: Stack) -> tuple[list[Ratio], list[tuple[str, float]]]:
    worker = atlas_process(["worker", "--name", "bench-hot"], stack.env, stack.home / "worker-hot.log")
    meter = Commands(stack.conn)
    try:
        wait(lambda: Worker.all(connection=stack.conn), "the worker")
        _slack_runs(stack, meter, 900_000)()  # warm: connections, first imports
        quiet(worker.pid)
        idle = idle_rate(meter)
        counters = iter(range(0, 10_000_000, 1000))
        slack = [
            (
                batch(meter, worker.pid, idle, _slack_runs(stack, meter, next(counters)), RUNS_PER_ROUND),
                batch(meter, worker.pid, idle, _noops(stack, meter), RUNS_PER_ROUND),
            )
            for _ in range(ROUNDS)
        ]
        io = [
            (
                batch(meter, worker.pid, idle, _slack_runs(stack, meter, next(counters)), RUNS_PER_ROUND)[0],
                batch(meter, worker.pid, idle, _io_jobs(stack, meter, next(counters)), RUNS_PER_ROUND)[0],
            )
            for _ in range(ROUNDS)
        ]
        queued = [
            (
                batch(meter, worker.pid, idle, _queued_runs(stack, meter, next(counters)), RUNS_PER_ROUND)[0],
                batch(meter, worker.pid, idle, _noops(stack, meter), RUNS_PER_ROUND)[0],
            )
            for _ in range(ROUNDS)
        ]
        memory = [("atlas worker (after the runs)", rss_mib(worker.pid))]
    finally:
        worker.terminate()
        worker.wait(timeout=15)
    scheduling = atlas_process(
        ["worker", "--name", "bench-scheduler", "--with-scheduler"], stack.env, stack.home / "worker-sched.log"
    )
    try:
        wait(lambda: len(psutil.Process(scheduling.pid).children()) >= 1, "the scheduler child")
        time.sleep(2)
        memory.append(("atlas worker --with-scheduler (worker + scheduler child, idle)", rss_mib(scheduling.pid)))
    finally:
        scheduling.terminate()
        scheduling.wait(timeout=15)
    rows = [
        _ratio("worker CPU per run, instant model (queued run)", queued, 2.5, "ms"),
        _ratio("worker CPU per one-step Slack run", [(a[0], f[0]) for a, f in slack], 2.5, "ms"),
        _ratio("worker CPU per one-step Slack run, against a job making only its requests", io, 2.5, "ms"),
        _ratio("Redis commands per one-step Slack run", [(a[1], f[1]) for a, f in slack], 1.3, ""),
    ]
    return rows, memory


def _ratio(path: str, pairs: list[tuple[float, float]], goal: float, unit: str) -> Ratio:
    return Ratio(
        path,
        statistics.median(a for a, _ in pairs),
        statistics.median(f for _, f in pairs),
        goal,
        unit,
        tuple((round(a, 2), round(f, 2)) for a, f in pairs),
    )


def _ask_path(stack: Stack) -> Ratio:
    env = {**os.environ, **stack.env, "PATH": f"{REPO / '.venv' / 'bin'}:{os.environ.get('PATH', '')}"}
    ask = [sys.executable, "-m", "atlas.cli.main", "ask", "What does ORB-1202 mean?"]
    floor = [sys.executable, "-c", "import redis, rq"]

    def timed(cmd: list[str]) -> float:
        start = time.perf_counter()
        done = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or (cmd is ask and ANSWER_TEXT not in done.stdout):
            raise RuntimeError(f"bench: {cmd[-1]!r} failed: {done.stderr[-500:]}")
        return time.perf_counter() - start

    timed(ask)  # cold: starts the background worker for this shell's settings, which then stays warm
    try:
        return measure(
            "atlas ask, warm worker",
            lambda: statistics.median(timed(ask) for _ in range(ASKS_PER_ROUND)),
            lambda: statistics.median(timed(floor) for _ in range(ASKS_PER_ROUND)),
            2.0,
            "s",
            ROUNDS,
        )
    finally:
        for worker in Worker.all(connection=stack.conn):  # the background worker ask started
            try:
                os.killpg(worker.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def run() -> list[Table]:
    load = os.getloadavg()
    with _stack(1) as stack:
        rows, memory = _worker_paths(stack)
        rows.append(_ask_path(stack))
        serve = psutil.Process(_serve_pid(stack))
        memory.append(("atlas serve --processes 1 (after the runs)", rss_mib(serve.pid)))
    notes = [
        f"{ROUNDS} interleaved rounds (Atlas, floor, Atlas, floor ...); "
        f"medians; {RUNS_PER_ROUND} runs per round per side",
        "floor of the worker rows: the same `atlas worker` process running a "
        "no-op job (bench.hot_paths.noop) from the same queue",
        "floor of 'against a job making only its requests': a job that makes the one-step Slack run's "
        "requests (one model call, chat.postMessage) through the same clients, nothing else",
        "Redis commands: INFO commandstats over web, worker and enqueuer, less this meter's polls and the idle rate "
        "(heartbeats, maintenance) times the batch's elapsed time",
        "ask: `atlas ask` with its background worker already up, against `python -c 'import redis, rq'`",
        f"load average at start {load[0]:.2f} on {os.cpu_count()} cores",
    ]
    return [
        ratio_table("Worker, Redis and `atlas ask` against their floors (same run)", rows, notes),
        memory_table("Memory per process (RSS)", memory),
    ]


def _serve_pid(stack: Stack) -> int:
    """The `atlas serve` process of the stack (this process's child running `serve`)."""
    for child in psutil.Process().children():
        if "serve" in child.cmdline():
            return child.pid
    raise LookupError("atlas serve is not running")


if __name__ == "__main__":
    for table in run():
        print(table.render() + "\n")
