"""Redis killed (SIGKILL) mid-run and restarted on the same socket: a real worker rides it out and the
run is answered; a mention that arrives meanwhile is kept by the web process and answered afterwards.

Each test has its own embedded valkey-server (its own ATLAS_HOME), so killing it touches no other test.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Worker

from atlas import embedded_redis
from atlas.settings import Settings
from bot.slack import wording
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, mention
from tests.standins.slack_fixtures import slack_api, slack_settings, start_bot  # noqa: F401
from tests.standins.turns import reply_text
from tests.support.processes import wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.runs.queueing import submit
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore

CHANNEL = "C0GENERAL"
OUTAGE_SECONDS = 3.0  # the reproduction used 12 s; the mechanism does not depend on the length


@dataclass
class Private:
    """An embedded Redis of this test's own, which the test may kill and restart."""

    home: Path

    @property
    def url(self) -> str:
        return embedded_redis.url(self.home)

    def kill(self) -> None:
        pid = int((embedded_redis.data_dir(self.home) / "valkey.pid").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not embedded_redis.is_running(self.home), what="valkey to die")

    def restart(self) -> float:
        embedded_redis.ensure_running(self.home)
        return time.monotonic()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[Private]:
    home = tmp_path / "home"
    embedded_redis.ensure_running(home)
    yield Private(home)
    embedded_redis.stop(home)


@pytest.fixture
def env(
    private_redis: Private,
    slack_api: SlackAPI,
    scripted_model: ScriptedModel,
    tmp_path: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> dict[str, str]:
    for name in list(os.environ):
        if name.startswith(("ATLAS_", "OPENAI_", "SLACK_")) or name in {"REDIS_URL", "PORT"}:
            monkeypatch.delenv(name, raising=False)
    return {
        "ATLAS_HOME": str(private_redis.home),
        **slack_api.env(),
        **scripted_model.env(),
        "SLACK_SIGNING_SECRET": SECRET,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_MODEL_RETRIES": "0",
        "ATLAS_REDIS_RETRY_CAP": "0.5",
    }


def held_reply(text: str, release: threading.Event, asked: threading.Event) -> Any:
    """A model turn that answers only once the test says so: the run is mid-step while Redis dies."""

    def turn(request: dict[str, Any]) -> Any:
        asked.set()
        release.wait(60)
        return reply_text(text)

    return turn


def _answers(api: SlackAPI, thread: str) -> list[dict[str, Any]]:
    return [m for m in api.thread(CHANNEL, thread) if any(b.get("type") == "markdown" for b in m.get("blocks") or [])]


def test_a_worker_rides_out_a_redis_kill_mid_run_and_answers_after_it_returns(
    env: dict[str, str],
    private_redis: Private,
    slack_api: SlackAPI,
    scripted_model: ScriptedModel,  # noqa: F811
) -> None:
    release, asked = threading.Event(), threading.Event()
    scripted_model.script(
        held_reply("ORB-1202 means PermanentError.", release, asked), reply_text("Still here after the outage.")
    )
    conn = redis.Redis.from_url(private_redis.url)
    origin = Origin(
        kind="slack",
        channel=CHANNEL,
        thread_ts="1700002000.000001",
        message_ts="1700002000.000001",
        user="U1",
        team="T0TEST",
    )
    with worker_process(env, "outage-worker") as worker:
        run = submit(conn, "atlas", "What does ORB-1202 mean?", origin)
        assert asked.wait(60), "the worker never called the model"
        private_redis.kill()
        release.set()  # the step finishes while Redis is gone: saving it must wait, not crash
        time.sleep(OUTAGE_SECONDS)
        assert worker.poll() is None, "the worker exited while Redis was down"
        private_redis.restart()
        [answer] = wait_for(
            lambda: _answers(slack_api, "1700002000.000001"), timeout=60, what="the answer after Redis returned"
        )
        assert "PermanentError" in answer["blocks"][0]["text"]
        assert worker.poll() is None
        assert RunStore(redis.Redis.from_url(private_redis.url)).load(run.id).status == "done"
        # a later question is answered by the same worker: nothing was left broken
        later = submit(
            redis.Redis.from_url(private_redis.url),
            "atlas",
            "And now?",
            Origin(**{**origin.model_dump(), "thread_ts": "1700002001.000001", "message_ts": "1700002001.000001"}),
        )
        wait_for(lambda: _answers(slack_api, "1700002001.000001"), timeout=60, what="a later question answered")
        assert RunStore(redis.Redis.from_url(private_redis.url)).load(later.id).status == "done"


def test_a_mention_while_redis_is_down_is_kept_and_answered_after_it_returns(
    env: dict[str, str],
    private_redis: Private,
    slack_api: SlackAPI,
    scripted_model: ScriptedModel,
    tmp_path: Path,  # noqa: F811
) -> None:
    scripted_model.script(reply_text("Answered after the outage."))
    worker_side = Settings.from_env(env)  # the web process answers under the worker's settings (same fingerprint)
    settings = slack_settings(
        slack_api,
        private_redis.url,
        private_redis.home,
        data_dir=worker_side.data_dir,
        openai_api_key=worker_side.openai_api_key,
        openai_base_url=worker_side.openai_base_url,
        model_max_retries=worker_side.model_max_retries,
        redis_retry_cap_seconds=0.5,
    )
    assert settings.fingerprint == worker_side.fingerprint
    running, server = start_bot(settings, slack_api)
    try:
        with worker_process(env, "spool-worker") as worker:
            # registered: past its start-up, where a worker would start the embedded Redis again
            wait_for(
                lambda: Worker.all(connection=redis.Redis.from_url(private_redis.url)), timeout=60, what="the worker"
            )
            private_redis.kill()
            thread = "1700003000.000001"
            started = time.monotonic()
            assert running.send.event(mention("What does ORB-1202 mean?", ts=thread)).status == 200
            ack_seconds = time.monotonic() - started
            [note] = wait_for(lambda: slack_api.thread(CHANNEL, thread), what="the note")
            assert note["text"] == wording.KEPT_FOR_LATER and ack_seconds < 3  # Slack's deadline
            time.sleep(OUTAGE_SECONDS)  # no Slack retry is ever sent in this test
            assert _answers(slack_api, thread) == []  # nothing could run while Redis was down
            private_redis.restart()
            [answer] = wait_for(lambda: _answers(slack_api, thread), timeout=60, what="the kept question answered")
            assert answer["blocks"][0]["text"] == "Answered after the outage."
            assert worker.poll() is None
            runs = [
                RunState.model_validate_json(raw)
                for key in redis.Redis.from_url(private_redis.url).scan_iter("atlas:run:*")
                if key.count(b":") == 2 and (raw := redis.Redis.from_url(private_redis.url).get(key))
            ]
            assert [r.question for r in runs] == ["What does ORB-1202 mean?"]
    finally:
        server.close()
        running.deps.background.shutdown(wait=True)
