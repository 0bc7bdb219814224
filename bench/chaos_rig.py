"""The chaos bench's deployment (bench/chaos.py): an embedded Redis, `atlas serve`, the Slack Web API stand-in, a
paced model stand-in, `atlas worker --concurrency N` processes (the first also the scheduler) and, with issues in
the plan, the GitHub stand-in; the plan, and the Slack outage the bench holds until it did what it is for.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from rq import Queue, Worker
from rq.job import Job
from rq.registry import ScheduledJobRegistry, StartedJobRegistry

from atlas import embedded_redis
from bench import chaos_help, chaos_triage
from bench.measure import wait
from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import call_outputs
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender
from tests.standins.turns import Turn, reply_calls, reply_text
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
    issues: int = 0  # new GitHub issues among the mentions, each card approved or denied (bench/chaos_triage.py)
    help_posts: int = 0  # help-channel posts among the mentions (bench/chaos_help.py)


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
    github: Any = None  # the GitHub stand-in, with `issues`
    webhook: str = ""

    def conn(self) -> redis.Redis:
        return redis.Redis.from_url(embedded_redis.url(self.home / "redis"), socket_timeout=5)

    def start_worker(self, index: int, *extra: str) -> None:
        self.started += 1
        name = f"chaos-{index}-{self.started}"
        proc = atlas_process(
            ["worker", "--name", name, "--concurrency", self.env["ATLAS_WORKER_CONCURRENCY"], *extra],
            self.env,
            self.home / f"{name}.log",
        )
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
        return [
            m
            for m in self.api.thread(CHANNEL, thread)
            if any(b.get("type") == "markdown" for b in m.get("blocks") or [])
        ]


@contextmanager
def rig(plan: Plan, root: Path) -> Iterator[Rig]:
    url = embedded_redis.ensure_running(root / "redis")
    with SlackAPI() as api, ScriptedModel(fallback=PacedModel(plan.model_seconds)) as model, ExitStack() as more:
        github = more.enter_context(chaos_triage.stand_in()) if plan.issues else None
        data = chaos_triage.env(github, root / "atlas") if github else {"ATLAS_DATA": str(make_dataset(root / "data"))}
        env = {
            "REDIS_URL": url,
            "ATLAS_HOME": str(root / "atlas"),
            **data,
            **(chaos_help.env() if plan.help_posts else {}),
            **api.env(),
            **model.env(),
            "SLACK_SIGNING_SECRET": SECRET,
            "ATLAS_SEMANTIC": "off",
            "ATLAS_MODEL_RETRIES": "0",
            "ATLAS_WORKER_CONCURRENCY": str(plan.concurrency),
            # a killed worker's runs are found in seconds; 5 s, not less: on a loaded machine a 2 s heartbeat and
            # lease lapse under a live job, whose run a second job then works at the same time (see the report)
            "ATLAS_WORKER_HEARTBEAT_TTL": "5",
            "ATLAS_WORKER_MAINTENANCE": "1",
            "ATLAS_SLACK_OUTAGE_SECONDS": str(max(120.0, 4 * plan.slack_outage_seconds)),
            "ATLAS_SLACK_RETRY_CAP": "2",
            "ATLAS_REDIS_RETRY_CAP": "0.5",
        }
        rig = Rig(root, env, api, SlackSender(""), [], [], github=github)
        try:
            for index in range(plan.workers):  # they start up while the web process does
                rig.start_worker(index, *(["--with-scheduler"] if index == 0 else []))
            with atlas_serve(env, root / "serve.log") as port:
                rig.send = SlackSender(f"http://127.0.0.1:{port}/slack/events")
                rig.webhook = f"http://127.0.0.1:{port}/github/webhook"
                wait(
                    lambda: len(Worker.all(connection=rig.conn())) >= plan.workers,
                    "the workers to register",
                    timeout=90,
                )
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


def redeliveries(rig: Rig) -> int:
    """Re-delivery jobs scheduled so far (each is kept an hour once done)."""
    return sum(1 for _ in rig.conn().scan_iter("rq:job:atlas-run-*-deliver-*", count=1000))


def lingering(rig: Rig) -> list[str]:
    """The jobs queued, started or scheduled, but the periodic sync (which always has its next one scheduled, with
    issues in the plan) and the cards' expiries: none left means no job could post anything more."""
    conn = rig.conn()
    queue = Queue(QUEUE, connection=conn)
    ids = [
        *queue.job_ids,
        *StartedJobRegistry(queue=queue).get_job_ids(),
        *ScheduledJobRegistry(queue=queue).get_job_ids(),
    ]
    jobs = [job for job in Job.fetch_many(ids, connection=conn) if job is not None]
    waiting = (".periodic_sync", ".expire_step")  # a card's expiry waits its hours, and does nothing to a decided card
    return [f"{job.id} ({job.func_name}, {job.get_status()})" for job in jobs if not job.func_name.endswith(waiting)]


class SlackOutage:
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
