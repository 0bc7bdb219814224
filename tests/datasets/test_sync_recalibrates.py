"""`atlas sync github` asks a worker to recalibrate the repository's triage on what it synced (issue 36 item 2), once
while one is queued; with Redis down it says the next new issue will, and the sync still succeeds."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from rq import Queue

from atlas.cli.main import main
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import cli_env
from workers.runs.job_names import RECALIBRATE
from workers.triage import recalibration


def test_a_cli_sync_queues_the_recalibration_and_never_fails_on_redis(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with GitHubAPI(generate(6, comments=2)) as api:
        cli_env(monkeypatch, api, tmp_path)
        monkeypatch.setenv("ATLAS_TRIAGE_CHANNEL", "C0TRIAGE")
        monkeypatch.setenv("ATLAS_QUEUE", "q-sync-cli")
        monkeypatch.setenv("REDIS_URL", redis_url)
        assert main(["sync", "github"]) == 0
        assert "triage: recalibration queued for a worker" in capsys.readouterr().out
        [job] = Queue("q-sync-cli", connection=redis.Redis.from_url(redis_url)).jobs
        assert job.func_name == RECALIBRATE and job.args == ("acme/rocket",)
        assert job.id == recalibration.job_id("acme/rocket")
        assert main(["sync", "github"]) == 0  # still queued: not a second one
        assert "recalibration already queued" in capsys.readouterr().out
        assert Queue("q-sync-cli", connection=redis.Redis.from_url(redis_url)).count == 1

        monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens there
        assert main(["sync", "github"]) == 0
        out = capsys.readouterr().out
        assert "triage: recalibration not queued (ConnectionError)" in out
