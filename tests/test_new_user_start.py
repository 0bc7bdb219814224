"""What a new user hits at start (issue 22 items 28, 30, 31): real `atlas` processes, one line each."""

from __future__ import annotations

import subprocess
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest

from tests.processes import atlas_command, atlas_serve, free_port
from tests.tools_dataset import make_dataset


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return make_dataset(tmp_path / "data")


def _lines(stderr: str) -> list[str]:
    assert "Traceback" not in stderr
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith("[atlas] ")]


def test_a_worker_whose_redis_is_unreachable_at_start_says_so_and_exits_1(tmp_path: Path, data: Path) -> None:
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": url}
    try:
        done = atlas_command("worker", env=env, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("atlas worker kept waiting for an unreachable Redis at start")
    assert done.returncode == 1, done.stderr
    [line] = _lines(done.stderr)
    assert line.startswith("atlas worker: Redis is unreachable at redis://:***@127.0.0.1:") and "hunter2" not in done.stderr


@pytest.mark.parametrize("url", ["notaurl", "http://127.0.0.1:6379", "redis://127.0.0.1:port/0", "unix://"])
def test_a_malformed_redis_url_is_a_configuration_error(tmp_path: Path, data: Path, url: str) -> None:
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": url}
    done = atlas_command("worker", env=env, timeout=30)
    assert done.returncode == 2, done.stderr
    [line] = _lines(done.stderr)
    assert line.startswith("atlas worker: configuration error: REDIS_URL ") and "a bug" not in line


def test_a_malformed_redis_url_never_shows_its_password(tmp_path: Path, data: Path) -> None:
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": "redis://:hunter2@127.0.0.1:port/0"}
    done = atlas_command("audit", env=env, timeout=30)
    assert done.returncode == 2 and "hunter2" not in done.stderr + done.stdout


@pytest.mark.parametrize("timeout", ["-1", "0", "nan", "soon"])
def test_ask_refuses_a_timeout_that_is_not_a_positive_number(tmp_path: Path, data: Path, timeout: str) -> None:
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": f"redis://127.0.0.1:{free_port()}"}
    done = atlas_command("ask", "hello?", "--timeout", timeout, env=env, timeout=30)  # (no Redis: nothing starts)
    assert done.returncode == 2
    assert "--timeout" in done.stderr and "usage: atlas ask" in done.stderr


@pytest.mark.parametrize("discord", [False, True])
def test_serve_without_slack_still_serves_what_is_configured_and_says_what_is_off(
        tmp_path: Path, data: Path, redis_url: str, discord: bool) -> None:
    """`make run` on a fresh clone starts `atlas serve` with no Slack secrets: it serves its health check
    (and Discord, GitHub when set) instead of exiting and taking honcho's other processes down."""
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": redis_url,
           **({"DISCORD_PUBLIC_KEY": "ab" * 32, "DISCORD_APPLICATION_ID": "1"} if discord else {})}
    log = tmp_path / "serve.log"
    with atlas_serve(env, log) as port:  # listening: its health check answers
        if discord:
            with pytest.raises(HTTPError) as unsigned:
                urlopen(Request(f"http://127.0.0.1:{port}/discord/interactions", data=b"{}", method="POST"), timeout=5)
            assert unsigned.value.code == 401  # Discord's endpoint is up: it refuses an unsigned request
        with pytest.raises(HTTPError) as slack:
            urlopen(Request(f"http://127.0.0.1:{port}/slack/events", data=b"{}", method="POST"), timeout=5)
        assert slack.value.code == 404
    off = [line for line in log.read_text().splitlines() if "Slack is off" in line]
    assert len(off) == 1 and "SLACK_BOT_TOKEN" in off[0] and "SLACK_SIGNING_SECRET" in off[0], log.read_text()
