"""The Slack benches' deployment: `atlas serve` on an embedded Redis, the Slack stand-in and an instant model,
shared by the Slack, hot-path, memory, Redis and concurrency benches (split from bench/slack.py, which the
ack bench imported back: a circle)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis

from atlas import embedded_redis
from bench.processes import atlas_serve
from bench.slack_load import InstantModel
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender
from tests.support.processes import free_port

REPO = Path(__file__).resolve().parent.parent
ANSWER_TEXT = "ORB-1202 is PermanentError: the job is not retried."
SERVE_PROCESSES = os.cpu_count() or 1


@dataclass
class Stack:
    env: dict[str, str]
    api: SlackAPI
    conn: redis.Redis
    send: SlackSender
    home: Path


@contextmanager
def _stack(processes: int = SERVE_PROCESSES, model: InstantModel | None = None) -> Iterator[Stack]:
    """`atlas serve` on an embedded Redis, the Slack stand-in and a model (the instant one unless given)."""
    with tempfile.TemporaryDirectory(prefix="atlas-bench-slack-") as tmp:
        home = Path(tmp)
        url = embedded_redis.ensure_running(home / "redis")
        model = model or InstantModel(ANSWER_TEXT)
        api = SlackAPI().start()
        from tests.support.tools_dataset import make_dataset

        data = REPO / "datasets" / "orbit"
        if not (data / "issues" / "issues.jsonl").is_file():
            data = make_dataset(home / "data")
        port = free_port()
        env = {
            "REDIS_URL": url,
            "ATLAS_HOME": str(home / "atlas"),
            "ATLAS_DATA": str(data),
            **api.env(),
            "SLACK_SIGNING_SECRET": SECRET,
            "OPENAI_BASE_URL": model.base_url,
            "OPENAI_API_KEY": "bench",
        }
        try:
            with atlas_serve(env, home, port, processes):
                yield Stack(
                    env, api, redis.Redis.from_url(url), SlackSender(f"http://127.0.0.1:{port}/slack/events"), home
                )
        finally:
            api.stop()
            model.close()
            embedded_redis.stop(home / "redis")


def _answer_posted(api: SlackAPI, thread_ts: str) -> float | None:
    for call in api.calls_to("chat.postMessage"):
        if (
            call.args.get("thread_ts") == thread_ts
            and call.reply.get("ok")
            and any(b.get("type") == "markdown" for b in call.args.get("blocks") or [])
        ):
            return call.at
    return None
