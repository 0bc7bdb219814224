"""The concurrency bench's rig (bench/concurrency.py): bench/slack.py's stack with a model stand-in that takes
MODEL_SECONDS per call and counts the calls it holds at once, and one `atlas worker --concurrency N` process."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import redis

from bench.measure import wait
from bench.processes import stop
from bench.slack_load import InstantModel, ModelServer
from bench.slack_rig import _stack as slack_stack
from tests.standins.responses_render import call_outputs, response_body
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SlackSender
from tests.standins.turns import Turn, reply_calls, reply_text
from tests.support.processes import atlas_process

MODEL_SECONDS = 2.0


class _Server(ModelServer):
    request_queue_size = 256  # a hundred runs connect at once


class PacedModel(InstantModel):
    """A Responses API whose every reply takes MODEL_SECONDS: a call, a second call, then the answer.
    Counts the calls it holds at once (and the most it ever held)."""

    server_class = _Server

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        super().__init__("")

    def respond(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            time.sleep(MODEL_SECONDS)
            return response_body(self.turn(request), request)
        finally:
            with self.lock:
                self.in_flight -= 1

    @staticmethod
    def turn(request: dict[str, Any]) -> Turn:
        done = len(call_outputs(request))
        if done == 0:
            return reply_calls([("search_docs", {"query": "retries and backoff", "k": 3})])
        if done == 1:
            return reply_calls([("get_issue", {"issue_id": 3, "include": ["body", "labels"]})])
        return reply_text("Retries back off exponentially; see #3 and the retries page.")


@dataclass
class Stack:
    env: dict[str, str]
    conn: redis.Redis
    home: Path
    model: PacedModel
    api: SlackAPI
    send: SlackSender


@contextmanager
def _stack() -> Iterator[Stack]:
    """bench/slack.py's stack (`atlas serve`, embedded Redis, the Slack stand-in), with the paced model."""
    model = PacedModel()
    with slack_stack(1, model) as s:
        yield Stack(s.env, s.conn, s.home, model, s.api, s.send)


@contextmanager
def _worker(stack: Stack, concurrency: int) -> Iterator[psutil.Process]:
    """One `atlas worker --concurrency N` process, yielded once RQ lists it."""
    from rq import Worker

    name = f"bench-c{concurrency}-{time.time_ns()}"
    proc = atlas_process(
        ["worker", "--name", name, "--concurrency", str(concurrency)], stack.env, stack.home / f"{name}.log"
    )
    try:
        wait(lambda: any(w.name == name for w in Worker.all(connection=stack.conn)), "the worker to register")
        yield psutil.Process(proc.pid)
    finally:
        stop([proc])
