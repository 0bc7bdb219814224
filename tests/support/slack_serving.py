"""The Slack end-to-end tests' deployment: `atlas serve` as its own process with the environment `atlas worker`
shares (test Redis, the Slack stand-in, a small dataset), and the answers in a thread as a person reads them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.processes import (
    atlas_serve,
)
from tests.support.tools_dataset import make_dataset

CHANNEL = "C0GENERAL"


@pytest.fixture
def env(atlas_env: dict[str, str], slack_api: SlackAPI, tmp_path: Path) -> dict[str, str]:  # noqa: F811
    """The environment `atlas serve` and `atlas worker` read: test Redis, stand-in Slack, a small dataset."""
    return {
        **atlas_env,
        **slack_api.env(),
        "SLACK_SIGNING_SECRET": SECRET,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_MODEL_RETRIES": "0",
    }


@pytest.fixture
def serve(env: dict[str, str], tmp_path: Path) -> Iterator[SlackSender]:
    """`atlas serve` as its own process, the way the Procfile runs it."""
    with serving_app(env, tmp_path) as sender:
        yield sender


@contextmanager
def serving_app(env: dict[str, str], tmp_path: Path) -> Iterator[SlackSender]:
    """`atlas serve` with `env`: the web process and the workers of one deployment share their settings."""
    with atlas_serve(env, tmp_path / "serve.log") as port:
        yield SlackSender(f"http://127.0.0.1:{port}/slack/events")


def answers(api: SlackAPI, thread_ts: str) -> list[dict]:
    return [
        m
        for m in api.thread(CHANNEL, thread_ts)
        if any(b.get("type") == "markdown" for b in m.get("blocks") or [])
        or "couldn't finish" in json.dumps(m.get("blocks"))
    ]
