"""Chaos with concurrent workers: `python -m bench chaos` (issue 29; the test's small version is
tests/workers/process/test_chaos.py).

Real processes on loopback: an embedded Redis, `atlas serve`, the Slack Web API stand-in, a model stand-in
whose every call takes `model_seconds`, and `workers` processes of `atlas worker --concurrency N` (the first
one also `--with-scheduler`, the deployment's one scheduler). Mentions arrive signed at `atlas serve`
while, overlapping: Slack answers 503 to every Web API call (at least `slack_outage_seconds`, and until an
answer it refused has been left to a scheduled re-delivery), Redis is SIGKILLed and restarted on its socket (the mentions that arrive
meanwhile are kept by the web process), and plain workers are SIGKILLed while they hold runs (restarted at once, as a supervisor would; the scheduler worker is not killed: another one
takes its lock only once it lapses, about a minute). Then: is every mention answered exactly once?
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from rq import Queue, Worker
from rq.registry import ScheduledJobRegistry, StartedJobRegistry

from atlas import embedded_redis
from bench.measure import wait
from bench.report import Table
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender, mention
from tests.standins.turns import Turn, call_outputs, reply_calls, reply_text
from tests.support.processes import atlas_process, atlas_serve
from tests.support.tools_dataset import make_dataset

CHANNEL = "C0GENERAL"
QUEUE = "atlas"


@dataclass(frozen=True)
class Plan:
    """How hard to shake it. The defaults are the bench's; the test runs a small one."""

    mentions: int = 90
    workers: int = 2
    concurrency: int = 8
    kills: int = 3  # SIGKILLs of plain workers holding runs, each restarted at once
    redis_down_seconds: float = 10.0
    slack_outage_seconds: float = 20.0
    model_seconds: float = 0.5
    deadline_seconds: float = 240.0


@dataclass
class Outcome:
    """What the threads show once nothing is left to run (queue, started and scheduled jobs all empty)."""

    mentions: int
    answered_once: int = 0
    duplicated: int = 0
    missing: int = 0
    wrong: int = 0  # an answer that is not this thread's question's
    kills: int = 0  # SIGKILLs made (a late one is skipped when no run is left to hold)
    killed_runs: int = 0  # runs in flight in the processes that were SIGKILLed
    refused_posts: int = 0  # Web API calls Slack answered 503
    redeliveries: int = 0  # re-delivery jobs scheduled for answers Slack refused (workers/runs/redelivery.py)
    spooled: int = 0  # mentions that arrived while Redis was down
    slack_down_seconds: float = 0.0  # the outage: at least the plan's, and until an answer was left to a re-delivery
    seconds: float = 0.0  # from the first mention to the last answer
    notes: list[str] = field(default_factory=list)


class PacedModel:
    """Each run: search_docs, then an answer naming its own question; every call takes `pace` seconds."""

    def __init__(self, pace: float) -> None:
        self.pace = pace

    def __call__(self, request: dict[str, Any]) -> Turn:
        question = next(i["content"] for i in request["input"] if i.get("role") == "user")
        time.sleep(self.pace)
        if not call_outputs(request):
            return reply_calls([("search_docs", {"query": "retries", "k": 3})])
        return reply_text(f"answer to {question}")


@dataclass
class Rig:
    home: Path
    env: dict[str, str]
    api: SlackAPI
    send: SlackSender
    workers: list[subprocess.Popen[bytes]]
    names: list[str]
    started: int = 0

    def conn(self) -> redis.Redis:
        return redis.Redis.from_url(embedded_redis.url(self.home / "redis"), socket_timeout=5)

    def start_worker(self, index: int, *extra: str) -> None:
        self.started += 1
        name = f"chaos-{index}-{self.started}"
        proc = atlas_process(["worker", "--name", name, "--concurrency", self.env["ATLAS_WORKER_CONCURRENCY"], *extra],
                             self.env, self.home / f"{name}.log")
        if index < len(self.workers):
            self.workers[index], self.names[index] = proc, name
        else:
            self.workers.append(proc)
            self.names.append(name)

    def holding(self, index: int) -> int:
        """How many runs worker `index` is executing, as RQ records it."""
        found = [w for w in Worker.all(queue=Queue(QUEUE, connection=self.conn())) if w.name == self.names[index]]
        return found[0].current_execution_count if found else 0

    def kill_redis(self) -> None:
        pid = int((embedded_redis.data_dir(self.home / "redis") / "valkey.pid").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        wait(lambda: not embedded_redis.is_running(self.home / "redis"), "valkey to die", timeout=10)

    def answers(self, thread: str) -> list[dict[str, Any]]:
        return [m for m in self.api.thread(CHANNEL, thread) if any(b.get("type") == "markdown" for b in m.get("blocks") or [])]


@contextmanager
def _rig(plan: Plan, root: Path) -> Iterator[Rig]:
    url = embedded_redis.ensure_running(root / "redis")
    with SlackAPI() as api, ScriptedModel(fallback=PacedModel(plan.model_seconds)) as model:
        env = {"REDIS_URL": url, "ATLAS_HOME": str(root / "atlas"), "ATLAS_DATA": str(make_dataset(root / "data")),
               **api.env(), **model.env(), "SLACK_SIGNING_SECRET": SECRET, "ATLAS_SEMANTIC": "off",
               "ATLAS_MODEL_RETRIES": "0", "ATLAS_WORKER_CONCURRENCY": str(plan.concurrency),
               # a killed worker's runs are found in seconds; 5 s, not less: on a loaded machine a 2 s heartbeat and
               # lease lapse under a live job, whose run a second job then works at the same time (see the report)
               "ATLAS_WORKER_HEARTBEAT_TTL": "5", "ATLAS_WORKER_MAINTENANCE": "1",
               "ATLAS_SLACK_OUTAGE_SECONDS": str(max(120.0, 4 * plan.slack_outage_seconds)), "ATLAS_SLACK_RETRY_CAP": "2",
               "ATLAS_REDIS_RETRY_CAP": "0.5"}
        rig = Rig(root, env, api, SlackSender(""), [], [])
        try:
            for index in range(plan.workers):  # they start up while the web process does
                rig.start_worker(index, *(["--with-scheduler"] if index == 0 else []))
            with atlas_serve(env, root / "serve.log") as port:
                rig.send = SlackSender(f"http://127.0.0.1:{port}/slack/events")
                wait(lambda: len(Worker.all(connection=rig.conn())) >= plan.workers, "the workers to register", timeout=90)
                yield rig
        finally:
            for proc in rig.workers:
                proc.terminate()
            for proc in rig.workers:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
            embedded_redis.stop(root / "redis")


def _thread(index: int) -> str:
    return f"1700100000.{index:06d}"


def _mention(rig: Rig, index: int) -> None:
    reply = rig.send.event(mention(f"chaos question {index}", ts=_thread(index), eid=f"EvChaos{index:06d}"))
    assert reply.status == 200, reply


def _kill_a_plain_worker(rig: Rig, plan: Plan, outcome: Outcome, *, restart: bool = True, threads: list[str] | None = None) -> None:
    """SIGKILL the plain worker holding the most runs (once it holds one), and start another in its place;
    with `threads`, nothing is killed once they are all answered (no run is left to hold)."""
    plain = range(1, plan.workers)

    def pick() -> int | str | None:
        if any(rig.holding(i) for i in plain):
            return max(plain, key=rig.holding)
        return "done" if threads is not None and all(rig.answers(t) for t in threads) else None

    index = wait(pick, "a plain worker holding runs", timeout=120, interval=0.05)
    if not isinstance(index, int):
        return
    outcome.kills += 1
    outcome.killed_runs += rig.holding(index)
    rig.workers[index].send_signal(signal.SIGKILL)
    rig.workers[index].wait(timeout=10)
    if restart:
        rig.start_worker(index)


def _redeliveries(rig: Rig) -> int:
    """Re-delivery jobs scheduled so far (each is kept an hour once done)."""
    return sum(1 for _ in rig.conn().scan_iter("rq:job:atlas-run-*-deliver-*", count=1000))


def _quiet(rig: Rig) -> bool:
    """Nothing queued, started or scheduled: no job is left that could post anything more."""
    conn = rig.conn()
    queue = Queue(QUEUE, connection=conn)
    return queue.count == 0 and StartedJobRegistry(queue=queue).count == 0 and ScheduledJobRegistry(queue=queue).count == 0


class _SlackOutage:
    """Slack answers 503 to every Web API call from now until `end()`, which waits out at least `least` seconds
    of it. Not on a clock alone: on a loaded machine a worker's first runs reach their answers only after a
    fixed 5 s window has passed, so nothing was ever refused (the test waited in vain for a re-delivery)."""

    def __init__(self, rig: Rig, least: float) -> None:
        self.began, self.least, self.over = time.monotonic(), least, threading.Event()
        rig.api.outage(seconds=24 * 3600.0, when=lambda _args: not self.over.is_set())

    def end(self) -> float:
        """End it (no sooner than `least` seconds after it began); how long it lasted."""
        threading.Event().wait(max(0.0, self.began + self.least - time.monotonic()))
        self.over.set()
        return time.monotonic() - self.began


def soak(plan: Plan, root: Path) -> Outcome:
    """Run the plan; count each thread's answers once the deployment has nothing left to do."""
    outcome = Outcome(plan.mentions)
    first, later = plan.mentions // 2, plan.mentions // 4  # before the chaos, while Redis is down; the rest after it
    with _rig(plan, root) as rig, ThreadPoolExecutor(max_workers=16) as pool:
        began = time.monotonic()
        list(pool.map(lambda i: _mention(rig, i), range(first)))
        outage = _SlackOutage(rig, plan.slack_outage_seconds)  # every Web API call: the answers, progress, statuses
        _kill_a_plain_worker(rig, plan, outcome, restart=False)
        wait(lambda: _redeliveries(rig), "an answer Slack refused left to a re-delivery", timeout=plan.deadline_seconds,
             interval=0.1)
        outcome.slack_down_seconds = outage.end()
        rig.kill_redis()
        list(pool.map(lambda i: _mention(rig, i), range(first, first + later)))  # kept on disk by the web process
        outcome.spooled = later
        threading.Event().wait(plan.redis_down_seconds)  # the outage itself
        embedded_redis.ensure_running(root / "redis")
        rig.start_worker(1)
        wait(lambda: rig.names[1] in {w.name for w in Worker.all(connection=rig.conn())}, "the restarted worker to register", timeout=90)
        listed = {w.name for w in Worker.all(connection=rig.conn())}
        if len(listed) < plan.workers:
            outcome.notes.append(f"after Redis's restart RQ lists only {sorted(listed)}")
        list(pool.map(lambda i: _mention(rig, i), range(first + later, plan.mentions)))  # work for the later kills
        threads = [_thread(i) for i in range(plan.mentions)]
        for _ in range(plan.kills - 1):
            _kill_a_plain_worker(rig, plan, outcome, threads=threads)
        wait(lambda: all(rig.answers(t) for t in threads), "every thread answered", timeout=plan.deadline_seconds, interval=0.1)
        outcome.seconds = time.monotonic() - began
        wait(lambda: _quiet(rig), "no job left", timeout=60, interval=0.1)
        for index, thread in enumerate(threads):
            answers = rig.answers(thread)
            outcome.answered_once += len(answers) == 1
            outcome.duplicated += len(answers) > 1
            outcome.missing += not answers
            expected = f"answer to chaos question {index}"
            outcome.wrong += any(expected not in str(a.get("blocks")) for a in answers)
        outcome.refused_posts = sum(1 for c in rig.api.calls if c.status == 503)
        outcome.redeliveries = _redeliveries(rig)
    return outcome


def run() -> list[Table]:
    plan = Plan(mentions=int(os.environ.get("BENCH_CHAOS_MENTIONS", "90")))
    with tempfile.TemporaryDirectory(prefix="atlas-bench-chaos-") as tmp:
        outcome = soak(plan, Path(tmp))
    row: list[object] = [plan.mentions, f"{plan.workers} x {plan.concurrency}", outcome.kills, outcome.killed_runs,
                         f"{plan.redis_down_seconds:.0f} s", f"{outcome.slack_down_seconds:.0f} s", outcome.refused_posts,
                         outcome.redeliveries,
                         outcome.answered_once, outcome.duplicated, outcome.missing, outcome.wrong, outcome.seconds]
    return [Table(
        "Chaos with concurrent workers: worker SIGKILLs, a Redis SIGKILL and restart, Slack 503s, overlapping",
        ["mentions", "workers x slots", "kills", "runs killed", "Redis down", "Slack down", "503s", "re-deliveries",
         "answered once", "twice+", "missing", "wrong", "s to last answer"],
        [row],
        goal="every mention answered exactly once",
        met=outcome.answered_once == plan.mentions and not (outcome.duplicated or outcome.missing or outcome.wrong),
        notes=["BENCH_CHAOS_MENTIONS sets the mentions (default 90); the scheduler worker is never killed (its lock lapses in ~61 s)",
               "heartbeat TTL 5 s (the lease's too): at 2 s on a loaded machine a live job's lease lapsed and its run was worked twice",
               *outcome.notes],
    )]
