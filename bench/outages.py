"""Outages, on loopback with real processes: `python -m bench outages` (part of `make bench`).

1. Slack down: the Slack stand-in answers 503 to every `chat.postMessage` for a long time (11 minutes
   by default, `BENCH_SLACK_OUTAGE_SECONDS` to change it) while a real `atlas worker` with the
   production settings (ATLAS_SLACK_OUTAGE_SECONDS=900, ATLAS_SLACK_RETRY_CAP=30) delivers an
   answer. Measured: whether the answer appeared, how many times, tries, and its delay after Slack came back.
2. Redis killed (SIGKILL) mid-run and restarted 12 s later on the same socket, as in the issue: the
   worker is mid model call when Redis dies. Measured: time from Redis's return to the answer in Slack.
3. A mention arriving while Redis is down (the bot keeps it on disk): time from Redis's return to the answer.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from atlas import embedded_redis
from bench.measure import wait
from bench.report import Table
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, mention
from tests.standins.turns import reply_text
from tests.support.processes import atlas_process
from tests.support.tools_dataset import make_dataset
from workers.runs.queueing import submit
from workers.runs.state import Origin

CHANNEL = "C0GENERAL"
SLACK_OUTAGE_SECONDS = float(os.environ.get("BENCH_SLACK_OUTAGE_SECONDS", "660"))
REDIS_OUTAGE_SECONDS = 12.0


@dataclass
class Rig:
    home: Path
    env: dict[str, str]
    api: SlackAPI
    model: ScriptedModel

    def conn(self) -> redis.Redis:
        return redis.Redis.from_url(embedded_redis.url(self.home))

    def kill_redis(self) -> None:
        pid = int((embedded_redis.data_dir(self.home) / "valkey.pid").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        wait(lambda: not embedded_redis.is_running(self.home), "valkey to die", timeout=10)

    def answers(self, thread: str) -> list[dict[str, Any]]:
        return [
            m
            for m in self.api.thread(CHANNEL, thread)
            if any(b.get("type") == "markdown" for b in m.get("blocks") or [])
        ]


@contextmanager
def _rig() -> Iterator[Rig]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-outages-") as tmp:
        home = Path(tmp) / "home"
        embedded_redis.ensure_running(home)
        with SlackAPI() as api, ScriptedModel() as model:
            env = {
                "ATLAS_HOME": str(home),
                **api.env(),
                **model.env(),
                "SLACK_SIGNING_SECRET": SECRET,
                "ATLAS_DATA": str(make_dataset(Path(tmp) / "data")),
                "ATLAS_MODEL_RETRIES": "0",
                "PATH": os.environ.get("PATH", ""),
            }
            worker = atlas_process(
                ["worker", "--name", f"bench-outage-{time.time_ns()}"], env, Path(tmp) / "worker.log"
            )
            try:
                from rq import Worker

                rig = Rig(home, env, api, model)
                # registered: past its start-up, where a worker starts the embedded Redis if it is down
                wait(lambda: Worker.all(connection=rig.conn()), "the worker to register", timeout=60)
                yield rig
            finally:
                worker.terminate()
                worker.wait(timeout=15)
                embedded_redis.stop(home)


def _origin(thread: str) -> Origin:
    return Origin(kind="slack", channel=CHANNEL, thread_ts=thread, message_ts=thread, user="U1", team="T0TEST")


def slack_outage(seconds: float) -> list[object]:
    """An answer delivered through `seconds` of Slack answering 503 to every post."""
    with _rig() as rig:
        rig.model.script(reply_text("ORB-1202 is PermanentError."))
        rig.api.outage("chat.postMessage", seconds=seconds)
        back = time.monotonic() + seconds
        submit(rig.conn(), "atlas", "What does ORB-1202 mean?", _origin("1700009000.000001"))
        wait(lambda: rig.answers("1700009000.000001"), "the answer after the Slack outage", timeout=seconds + 120)
        posts = rig.api.calls_to("chat.postMessage")
        delay = posts[-1].at - back
        return [f"{seconds:.0f} s", "yes", len(rig.answers("1700009000.000001")), len(posts), delay]


def redis_kill_mid_run(outage: float) -> list[object]:
    """Redis SIGKILLed while the worker waits on the model; restarted after `outage` seconds."""
    with _rig() as rig:
        asked, release = threading.Event(), threading.Event()

        def held(request: dict[str, Any]) -> Any:
            asked.set()
            release.wait(120)
            return reply_text("ORB-1202 is PermanentError.")

        rig.model.script(held)
        submit(rig.conn(), "atlas", "What does ORB-1202 mean?", _origin("1700009100.000001"))
        assert asked.wait(60), "the worker never called the model"
        rig.kill_redis()
        release.set()
        time.sleep(outage)
        embedded_redis.ensure_running(rig.home)
        returned = time.monotonic()
        wait(lambda: rig.answers("1700009100.000001"), "the answer after Redis returned", timeout=120)
        return ["killed mid-run", f"{outage:.0f} s", rig.api.calls_to("chat.postMessage")[-1].at - returned]


def mention_while_redis_down(outage: float) -> list[object]:
    """A signed mention to an in-process bot while Redis is dead; the bot keeps it and queues it later."""
    from atlas.settings import Settings
    from tests.standins.slack_fixtures import start_bot

    with _rig() as rig:
        rig.model.script(reply_text("Answered after the outage."))
        settings = Settings.from_env(
            rig.env
        )  # the worker's own environment: the same settings fingerprint, or no answer
        running, server = start_bot(settings, rig.api)
        try:
            rig.kill_redis()
            started = time.monotonic()
            assert running.send.event(mention("What does ORB-1202 mean?", ts="1700009200.000001")).status == 200
            ack = time.monotonic() - started
            time.sleep(outage)
            embedded_redis.ensure_running(rig.home)
            returned = time.monotonic()
            wait(lambda: rig.answers("1700009200.000001"), "the kept question answered", timeout=120)
            return [
                f"mention while down (ack {ack * 1000:.0f} ms)",
                f"{outage:.0f} s",
                rig.api.calls_to("chat.postMessage")[-1].at - returned,
            ]
        finally:
            server.close()
            running.deps.background.shutdown(wait=True)


def run() -> list[Table]:
    redis_rows = [redis_kill_mid_run(REDIS_OUTAGE_SECONDS), mention_while_redis_down(REDIS_OUTAGE_SECONDS)]
    slack_row = slack_outage(SLACK_OUTAGE_SECONDS)
    return [
        Table(
            "Slack outage: every chat.postMessage answers 503; production delivery settings",
            ["outage", "answer posted", "answers in thread", "post tries", "s after Slack returned"],
            [slack_row],
            goal="an outage of at least 10 minutes is survived and the answer appears once",
            met=SLACK_OUTAGE_SECONDS >= 600 and slack_row[2] == 1,
            notes=["BENCH_SLACK_OUTAGE_SECONDS sets the outage (default 660); retries back off to at most 30 s apart"],
        ),
        Table(
            "Redis SIGKILLed and restarted on its socket: time from its return to the answer in Slack",
            ["case", "outage", "s from Redis's return to the answer"],
            redis_rows,
            goal="the run finishes within a minute of Redis returning, nobody restarting anything",
            met=all(float(row[2]) < 60 for row in redis_rows),  # type: ignore[arg-type]
        ),
    ]
