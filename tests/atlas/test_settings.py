"""Settings: run budgets are configuration, secrets never show, and the fingerprint tracks answers."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest
import redis
from rq import Queue, get_current_job

from atlas.errors import ConfigError
from atlas.settings import Settings
from tests.support.agent_harness import build_agent, settings_for
from workers.agent.budget import TOOL_TIMEOUT_SECONDS, Budget
from workers.process.rq_worker import make_worker
from workers.runs.queueing import JOB_TIMEOUT_SECONDS, job_timeout

SECRETS = {
    "OPENAI_API_KEY": "sk-test-very-secret-key",
    "SLACK_BOT_TOKEN": "xoxb-secret-bot-token",
    "SLACK_SIGNING_SECRET": "signing-secret-value",
    "SLACK_APP_TOKEN": "xapp-secret-app-token",
    "REDIS_URL": "redis://:redis-password-value@127.0.0.1:6379/0",
}


def test_budgets_default_to_todays_values() -> None:
    settings = Settings.from_env({})
    assert settings.budget == Budget(max_steps=8, max_seconds=60.0, max_tokens=100_000, max_errors=3)
    assert settings.tool_timeout_seconds == TOOL_TIMEOUT_SECONDS == 15.0


def test_budgets_are_read_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "ATLAS_MAX_STEPS": "3",
            "ATLAS_MAX_SECONDS": "12.5",
            "ATLAS_MAX_TOKENS": "5000",
            "ATLAS_MAX_ERROR_STEPS": "1",
            "ATLAS_TOOL_TIMEOUT": "2",
        }
    )
    assert settings.budget == Budget(max_steps=3, max_seconds=12.5, max_tokens=5000, max_errors=1)
    assert settings.tool_timeout_seconds == 2.0


@pytest.mark.parametrize(
    ("name", "value"), [("ATLAS_MAX_STEPS", "0"), ("ATLAS_MAX_TOKENS", "lots"), ("ATLAS_TOOL_TIMEOUT", "-1")]
)
def test_a_bad_budget_is_a_configuration_error_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: value})


def test_the_loop_runs_under_the_configured_budget(tmp_path: Path, redis_url: str) -> None:
    settings = replace(
        settings_for(tmp_path, redis_url, None), budget=Budget(max_steps=2, max_errors=1), tool_timeout_seconds=0.5
    )
    _, agent, _ = build_agent(settings)
    assert agent.limits.budget == Budget(max_steps=2, max_errors=1)
    assert agent.limits.tool_timeout == 0.5


def test_secrets_never_appear_in_repr_str_or_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings.from_env(SECRETS)
    assert settings.openai_api_key == SECRETS["OPENAI_API_KEY"]  # still there for the code that needs it
    logging.getLogger("atlas.test").warning("settings: %s / %r", settings, settings)
    shown = "\n".join(
        [repr(settings), str(settings), caplog.text, repr(settings.answer_settings()), settings.fingerprint]
    )
    for name, secret in SECRETS.items():
        leaked = secret if name != "REDIS_URL" else "redis-password-value"
        assert leaked not in shown, f"{name} leaked"


def test_the_fingerprint_changes_with_what_changes_an_answer() -> None:
    base = Settings.from_env({})
    assert Settings.from_env({}).fingerprint == base.fingerprint  # deterministic across processes
    changed = [
        {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"},
        {"ATLAS_DATA": "another-project"},
        {"ATLAS_MAX_STEPS": "2"},
        {"ATLAS_TOOL_TIMEOUT": "3"},
        {"ATLAS_PROJECT_NAME": "Rocket"},
        {"ATLAS_GITHUB_REPO": "acme/rocket", "ATLAS_DATA": "datasets/orbit"},  # the same data, GitHub as the tracker
    ]
    assert len({base.fingerprint, *(Settings.from_env(env).fingerprint for env in changed)}) == len(changed) + 1
    online = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"}
    assert Settings.from_env({**online, "ATLAS_MODEL": "other"}).fingerprint != Settings.from_env(online).fingerprint
    # what does not change an answer leaves it alone: the Slack token, the port, the queue's name
    same = Settings.from_env({"SLACK_BOT_TOKEN": "xoxb-1", "PORT": "8080", "ATLAS_QUEUE": "other"})
    assert same.fingerprint == base.fingerprint


def job_limit() -> int | None:
    """A job that reports the time limit it runs under."""
    job = get_current_job()
    return job.timeout if job else None


@pytest.mark.parametrize(
    ("max_seconds", "outage", "limit"), [(60.0, 0.0, 180), (600.0, 0.0, 720), (600.0, 900.0, 2520)]
)
def test_a_larger_time_budget_gets_a_longer_job_limit_in_the_worker(
    redis_conn: redis.Redis, max_seconds: float, outage: float, limit: int
) -> None:
    """The web process queues jobs with today's limit; a worker whose ATLAS_MAX_SECONDS is larger gives
    them its own, so RQ does not kill a run that is still within its budget."""
    queue = Queue("atlas-job-limit", connection=redis_conn)
    job = queue.enqueue(job_limit, job_timeout=JOB_TIMEOUT_SECONDS)
    make_worker(queue, job_timeout=job_timeout(max_seconds, outage)).work(burst=True)
    job.refresh()
    assert job.return_value() == limit


def test_the_fingerprint_does_not_depend_on_where_atlas_is_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A web machine and a worker machine may install the same image under different roots."""
    import atlas.settings

    fingerprints = set()
    for root in (tmp_path / "srv" / "atlas", tmp_path / "app"):
        monkeypatch.setattr(atlas.settings, "REPO_ROOT", root)
        fingerprints.add(Settings(data_dir=root / "datasets" / "orbit").fingerprint)
    assert len(fingerprints) == 1
    assert Settings(data_dir=tmp_path / "one").fingerprint != Settings(data_dir=tmp_path / "two").fingerprint


def test_the_web_server_settings_are_read_and_applied() -> None:
    """`atlas serve`'s request threads (bench/ack_floor.py gives its floors the same)."""
    from bot.web.serve import http_server

    assert Settings.from_env({}).http_threads == 16
    settings = Settings.from_env({"ATLAS_HTTP_THREADS": "6"})
    assert settings.http_threads == 6
    with pytest.raises(ConfigError, match="ATLAS_HTTP_THREADS"):
        Settings.from_env({"ATLAS_HTTP_THREADS": "0"})
    server = http_server(None, threads=settings.http_threads)
    try:
        assert server.adj.threads == 6
    finally:
        server.close()
