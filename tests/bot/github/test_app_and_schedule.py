"""GitHub App auth through the stand-in, and the periodic backstop sync's scheduling and lock."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from rq import Queue
from rq.registry import ScheduledJobRegistry

from atlas import github_client
from atlas.errors import ConfigError
from atlas.settings import Settings
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import exported, run_sync
from workers.jobs import github as github_jobs
from workers.process import runtime


def _pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def test_app_finds_its_installation_and_uses_an_installation_token(tmp_path: Path) -> None:
    with GitHubAPI(generate(5, comments=1)) as api:
        api.app_id = "1234"
        key = tmp_path / "app.pem"
        key.write_text(_pem())
        env = {
            "GITHUB_API_URL": api.base_url,
            "ATLAS_GITHUB_REPO": "acme/rocket",
            "GITHUB_APP_ID": "1234",
            "GITHUB_APP_PRIVATE_KEY_PATH": str(key),
            "ATLAS_HOME": str(tmp_path),
        }
        gh = Settings.from_env(env).github
        assert gh is not None
        client = github_client.client(gh)
        issue = client.rest.issues.get("acme", "rocket", 1).json()
        assert issue["number"] == 1
        [install] = api.requests("GET", r"/installation$")
        assert install.headers["authorization"].startswith("Bearer ")  # the App's JWT
        [token] = api.requests("POST", r"/access_tokens$")
        assert token.path == "/app/installations/55/access_tokens"
        [get] = api.requests("GET", r"/issues/1$")
        assert get.headers["authorization"].startswith("token ghs_installation_")
        assert api.violations == []


def test_app_settings_need_a_key() -> None:
    with pytest.raises(ConfigError, match="GITHUB_APP_PRIVATE_KEY"):
        Settings.from_env({"ATLAS_GITHUB_REPO": "acme/rocket", "GITHUB_APP_ID": "1"})
    with pytest.raises(ConfigError, match="OWNER/REPO"):
        Settings.from_env({"ATLAS_GITHUB_REPO": "not a repo"})


def test_one_chain_of_periodic_syncs_and_never_two_at_once(
    tmp_path: Path, redis_url: str, redis_conn: redis.Redis
) -> None:
    with GitHubAPI(generate(5, comments=1)) as api:
        settings = Settings.from_env(
            {**api.env(), "ATLAS_HOME": str(tmp_path), "REDIS_URL": redis_url, "ATLAS_SYNC_INTERVAL": "60"}
        )
        assert settings.github is not None and settings.github.sync_interval_seconds == 60
        queue = Queue(settings.queue_name, connection=redis_conn)
        assert github_jobs.schedule(redis_conn, queue, settings.github) is True
        assert github_jobs.schedule(redis_conn, queue, settings.github) is False  # a second worker starting
        assert len(ScheduledJobRegistry(queue=queue)) == 1
        run_sync(api, settings)
        runtime.install(runtime.build(settings))
        try:
            api.repo.edit_issue(2, title="Periodic sync sees this")
            before = len(api.calls)
            redis_conn.set("atlas:github:sync-lock:acme/rocket", "someone-else")
            assert github_jobs.periodic_sync() == "skipped: another sync is running"
            assert len(api.calls) == before
            redis_conn.delete("atlas:github:sync-lock:acme/rocket")
            assert github_jobs.periodic_sync().startswith("synced:")
            assert exported(settings)[2]["title"] == "Periodic sync sees this"
            assert redis_conn.get("atlas:github:sync-lock:acme/rocket") is None  # released
        finally:
            runtime.install(None)  # type: ignore[arg-type]


def test_secrets_stay_out_of_the_settings_repr() -> None:
    settings = Settings.from_env(
        {
            "ATLAS_GITHUB_REPO": "acme/rocket",
            "GITHUB_TOKEN": "github_pat_SECRET1",
            "GITHUB_WEBHOOK_SECRET": "hook-SECRET2",
        }
    )
    assert settings.github is not None and settings.github.token == "github_pat_SECRET1"
    assert "SECRET" not in repr(settings)
