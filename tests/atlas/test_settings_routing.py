"""The settings a command runs with are the settings that answer it (issue 8, item 1).

A background worker keeps the environment it started with. `atlas ask` routes its run to workers with
the shell's settings fingerprint (starting one if needed); a worker never answers a run taken under
other settings; the answer's footer names the model and the data folder that answered.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Worker

from atlas.settings import Settings
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_events import mention
from tests.standins.slack_fixtures import RunningBot, bot, slack_api  # noqa: F401
from tests.standins.turns import reply_text
from tests.support.processes import atlas_command
from tests.support.tools_dataset import make_dataset
from workers import wording
from workers.jobs import runs as jobs
from workers.process import runtime
from workers.runs.queueing import submit
from workers.runs.state import Origin
from workers.runs.store import RunStore

QUESTION = "What does ORB-1202 mean?"


@pytest.fixture
def background_workers(redis_conn: redis.Redis) -> Iterator[None]:
    """Kill the background workers `atlas ask` starts for itself (they would idle for 10 minutes)."""
    yield
    for worker in Worker.all(connection=redis_conn):
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _ask(env: dict[str, str], *flags: str) -> tuple[dict | str, str]:
    done = atlas_command("ask", *flags, QUESTION, env=env, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    return (json.loads(done.stdout) if "--json" in flags else done.stdout), done.stderr


def test_ask_is_answered_under_the_settings_of_the_shell_that_ran_it(
    tmp_path: Path,
    atlas_env: dict[str, str],
    scripted_model: ScriptedModel,
    redis_conn: redis.Redis,
    background_workers: None,
) -> None:
    orbit = make_dataset(tmp_path / "orbit")
    offline = {**atlas_env, "ATLAS_DATA": str(orbit)}
    first, _ = _ask(offline, "--json")
    assert first["model"] == "offline" and first["data_dir"] == str(orbit)

    # the same shell, now with a model configured: the offline worker must not answer
    scripted_model.script(reply_text("ORB-1202 is `PermanentError`, said the configured model."))
    online, log = _ask({**offline, **scripted_model.env()}, "--json")
    assert online["answer"] == "ORB-1202 is `PermanentError`, said the configured model."
    assert online["model"] == "gpt-6-luna" and online["data_dir"] == str(orbit)
    assert "started a background worker" in log
    scripted_model.assert_done()

    # another project's data folder: answered from that folder, and the footer says so
    other = make_dataset(tmp_path / "other-project")
    text, _ = _ask({**offline, "ATLAS_DATA": str(other)})
    assert f"answered by model offline, data {other}" in text
    assert len(Worker.all(connection=redis_conn)) == 3  # one per set of settings; none answered for another


def test_a_worker_refuses_a_run_taken_under_other_settings(tmp_path: Path, redis_url: str) -> None:
    settings = Settings(data_dir=make_dataset(tmp_path / "data"), home=tmp_path / "home", redis_url=redis_url)
    rt = runtime.build(settings)
    runtime.install(rt)
    try:
        elsewhere = Settings(data_dir=tmp_path / "another-project", home=tmp_path / "home", redis_url=redis_url)
        foreign = submit(rt.conn, "unused-queue", QUESTION, Origin(kind="cli"), fingerprint=elsewhere.fingerprint)
        assert jobs.continue_run(foreign.id) == "failed"
        refused = rt.store.load(foreign.id)
        assert refused.stop_reason == "settings_mismatch" and refused.steps == []  # no model call, no tool call
        assert refused.answer == wording.SETTINGS_MISMATCH and refused.answered_by is None

        own = submit(rt.conn, "unused-queue", QUESTION, Origin(kind="cli"), fingerprint=settings.fingerprint)
        assert jobs.continue_run(own.id) == "done"
        answered = rt.store.load(own.id)
        assert answered.answered_by is not None and answered.answered_by.model == "offline"
        assert answered.answered_by.data_dir == str(settings.data_dir)
    finally:
        runtime.install(None)  # type: ignore[arg-type]


def test_a_slack_run_carries_the_web_process_fingerprint(bot: RunningBot, redis_conn: redis.Redis) -> None:  # noqa: F811
    assert bot.send.event(mention(QUESTION, ts="1700000100.000200")).status == 200
    [key] = [k for k in redis_conn.scan_iter("atlas:run:*") if k.count(b":") == 2]
    run = RunStore(redis_conn).load(key.decode().rsplit(":", 1)[1])
    assert run.settings_fingerprint == bot.settings.fingerprint
