"""`atlas serve --socket`: the same app over Slack's Socket Mode (a local WebSocket stand-in)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.slack import wording
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import mention
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.standins.socket_mode import SocketModeServer
from tests.standins.tcp_proxy import TcpProxy
from tests.support.processes import REPO, atlas_command, wait_for
from tests.support.tools_dataset import make_dataset


def _runs(conn: redis.Redis) -> list[bytes]:
    return [k for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


@pytest.fixture
def socket_server(slack_api: SlackAPI) -> Iterator[SocketModeServer]:  # noqa: F811
    server = SocketModeServer().start()
    slack_api.socket_url = server.url
    yield server
    server.close()


def _serve_socket(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    import os

    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH")}
    return subprocess.Popen(
        [sys.executable, "-m", "atlas.cli.main", "serve", "--socket"],
        env={**base, **env},
        cwd=REPO,
        stdout=open(log, "ab"),
        stderr=subprocess.STDOUT,
    )


@pytest.fixture
def socket_env(atlas_env: dict[str, str], slack_api: SlackAPI, tmp_path: Path) -> dict[str, str]:  # noqa: F811
    return {
        **atlas_env,
        **slack_api.env(),
        "SLACK_APP_TOKEN": slack_api.app_token,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
    }


def test_a_mention_over_socket_mode_is_acked_once_queued_and_retries_are_acked_too(
    socket_env: dict[str, str], socket_server: SocketModeServer, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    proc = _serve_socket(socket_env, tmp_path / "serve.log")
    try:
        assert socket_server.connected.wait(60), (tmp_path / "serve.log").read_text()
        event = mention("over the socket?", ts="1700006000.000001")
        first = socket_server.send_envelope(event)
        assert socket_server.ack_for(first, timeout=10) == {"envelope_id": first}
        again = socket_server.send_envelope(event, retry_attempt=1)
        assert socket_server.ack_for(again, timeout=10) == {"envelope_id": again}
        assert len(_runs(redis_conn)) == 1
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_redis_down_over_socket_mode_keeps_the_question_and_queues_it_when_redis_returns(
    socket_env: dict[str, str],
    socket_server: SocketModeServer,
    slack_api: SlackAPI,
    redis_url: str,  # noqa: F811
    redis_conn: redis.Redis,
    tmp_path: Path,
) -> None:
    with TcpProxy.for_redis(redis_url) as proxy:
        proc = _serve_socket({**socket_env, "REDIS_URL": proxy.url()}, tmp_path / "serve.log")
        try:
            assert socket_server.connected.wait(60), (tmp_path / "serve.log").read_text()
            proxy.down()
            event = mention("anyone?", ts="1700006100.000001")
            kept = socket_server.send_envelope(event)
            assert socket_server.ack_for(kept, timeout=3) == {"envelope_id": kept}  # kept on disk: no redelivery needed
            [note] = wait_for(lambda: slack_api.thread("C0GENERAL", "1700006100.000001"), what="the note")
            assert note["text"] == wording.KEPT_FOR_LATER
            assert _runs(redis_conn) == []
            proxy.up()
            wait_for(lambda: len(_runs(redis_conn)) == 1, timeout=30, what="the kept question queued")
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def test_socket_mode_without_an_app_token_is_a_configuration_error(
    atlas_env: dict[str, str], slack_api: SlackAPI
) -> None:  # noqa: F811
    done = atlas_command("serve", "--socket", env={**atlas_env, **slack_api.env()}, timeout=60)
    assert done.returncode == 2
    assert "SLACK_APP_TOKEN" in done.stderr and "Traceback" not in done.stderr
