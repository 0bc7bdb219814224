"""What a new user hits at start (issue 22 items 28, 30, 31): real `atlas` processes, one line each."""

from __future__ import annotations

import subprocess
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest

from atlas.cli.main import parser
from atlas.errors import ConfigError
from atlas.settings import Settings
from tests.support.processes import atlas_command, atlas_serve, free_port
from tests.support.tools_dataset import make_dataset


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
    assert (
        line.startswith("atlas worker: Redis is unreachable at redis://:***@127.0.0.1:")
        and "hunter2" not in done.stderr
    )


@pytest.mark.parametrize("url", ["notaurl", "http://127.0.0.1:6379", "redis://:hunter2@127.0.0.1:port/0", "unix://"])
def test_a_malformed_redis_url_is_a_configuration_error_that_never_shows_it(url: str) -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"REDIS_URL": url})
    assert str(refused.value).startswith("REDIS_URL is not a Redis URL (") and "hunter2" not in str(refused.value)


def test_atlas_with_a_malformed_redis_url_exits_2_with_one_line(tmp_path: Path, data: Path) -> None:
    env = {
        "ATLAS_HOME": str(tmp_path / "home"),
        "ATLAS_DATA": str(data),
        "REDIS_URL": "redis://:hunter2@127.0.0.1:port/0",
    }
    done = atlas_command("worker", env=env, timeout=30)
    assert done.returncode == 2, done.stderr
    [line] = _lines(done.stderr)
    assert (
        line.startswith("atlas worker: configuration error: REDIS_URL ")
        and "a bug" not in line
        and "hunter2" not in line
    )


@pytest.mark.parametrize("timeout", ["-1", "0", "nan", "inf", "soon"])
def test_ask_refuses_a_timeout_that_is_not_a_positive_number(timeout: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        parser().parse_args(["ask", "hello?", "--timeout", timeout])  # the parser `atlas` runs, before anything starts
    assert refused.value.code == 2
    assert "--timeout" in capsys.readouterr().err


def test_serve_without_slack_still_serves_and_says_what_is_off(tmp_path: Path, data: Path, redis_url: str) -> None:
    """`make run` on a fresh clone starts `atlas serve` with no Slack secrets: it serves its health check
    (and Discord's and GitHub's paths when they are set) instead of exiting and taking honcho's other
    processes down with it."""
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": redis_url}
    log = tmp_path / "serve.log"
    with atlas_serve(env, log) as port:  # listening: its health check answers
        with pytest.raises(HTTPError) as slack:
            urlopen(Request(f"http://127.0.0.1:{port}/slack/events", data=b"{}", method="POST"), timeout=5)
        assert slack.value.code == 404
    off = [line for line in log.read_text().splitlines() if "Slack is off" in line]
    assert len(off) == 1 and "SLACK_BOT_TOKEN" in off[0] and "SLACK_SIGNING_SECRET" in off[0], log.read_text()
