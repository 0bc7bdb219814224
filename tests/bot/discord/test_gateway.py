"""Mentions over the Gateway: the real `atlas discord` process (hikari) against the Gateway and REST
stand-ins, real `atlas worker` processes, the answer in a thread started from the message."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from bot.discord.gateway import INTENTS
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import gateway, gateway_api  # noqa: F401
from tests.standins.discord_gateway import GatewayStandin, mention_payload
from tests.standins.responses_api import ScriptedModel
from tests.standins.tcp_proxy import TcpProxy
from tests.standins.turns import reply_text
from tests.support.processes import atlas_process, burst_worker, wait_for
from tests.support.tools_dataset import make_dataset

CHANNEL = "1300000000000000555"
BOT_MENTION = "<@1100000000000000002>"


@pytest.fixture
def api(gateway_api: DiscordAPI) -> DiscordAPI:
    return gateway_api


@pytest.fixture
def env(atlas_env: dict[str, str], api: DiscordAPI, tmp_path: Path) -> dict[str, str]:
    return {**atlas_env, **api.env(), "ATLAS_DATA": str(make_dataset(tmp_path / "data")), "ATLAS_MODEL_RETRIES": "0"}


@pytest.fixture
def discord_process(env: dict[str, str], gateway: GatewayStandin, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    with gateway_process(env, gateway, tmp_path) as proc:
        yield proc


@contextmanager
def gateway_process(env: dict[str, str], gateway: GatewayStandin, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`atlas discord`, the way the Procfile runs it, connected and identified, with its workers' settings."""
    proc = atlas_process(["discord"], env, tmp_path / "discord.log")
    try:
        wait_for(
            lambda: gateway.ready.is_set() or proc.poll() is not None, timeout=60, what="atlas discord to identify"
        )
        assert proc.poll() is None, (tmp_path / "discord.log").read_text()
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def _queued(conn: redis.Redis, n: int) -> bool:
    return len([k for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]) >= n


def test_a_mention_gets_one_answer_in_a_thread_started_from_the_message_even_when_delivered_twice(
    discord_process: subprocess.Popen[bytes],
    gateway: GatewayStandin,
    api: DiscordAPI,
    env: dict[str, str],
    redis_conn: redis.Redis,
) -> None:
    [identify] = gateway.received.identifies
    assert identify["intents"] == int(INTENTS) and not identify["intents"] & (1 << 15)  # no message-content intent
    message = mention_payload("1700000000000000001", f"{BOT_MENTION} What does ORB-1202 mean?", channel_id=CHANNEL)
    gateway.message_create(message)
    gateway.message_create(message)  # delivered twice
    wait_for(lambda: _queued(redis_conn, 1), what="the mention's run")
    burst_worker(env)

    assert api.threads == {"1700000000000000001": CHANNEL}
    thread = api.channel("1700000000000000001")
    answers = [m for m in thread if "stop: " in m["content"]]
    assert len(answers) == 1 and "ORB-1202" in answers[0]["content"]
    assert "Working on it" in thread[0]["content"] and "the answer is below" in thread[0]["content"]
    assert all(m["allowed_mentions"] == {"parse": []} for m in thread)
    assert api.channel(CHANNEL) == []  # nothing in the channel itself
    api.assert_valid()
    assert gateway.heartbeats >= 1


def test_after_a_dropped_connection_the_library_resumes_and_a_replayed_mention_is_answered_once(
    gateway: GatewayStandin,
    api: DiscordAPI,
    env: dict[str, str],
    redis_conn: redis.Redis,
    scripted_model: ScriptedModel,
    tmp_path: Path,
) -> None:
    scripted_model.script(reply_text("ORB-1202 is **PermanentError**."), reply_text("Raise `orbit.PermanentError`."))
    env = {**env, **scripted_model.env()}
    with gateway_process(env, gateway, tmp_path):
        first = mention_payload("1700000000000000010", f"{BOT_MENTION} What does ORB-1202 mean?", channel_id=CHANNEL)
        gateway.message_create(first)
        wait_for(lambda: _queued(redis_conn, 1), what="the first run")
        gateway.drop()
        gateway.message_create(first)  # sent while disconnected: replayed on RESUME, a duplicate
        wait_for(lambda: gateway.ready.is_set(), timeout=30, what="a RESUME")
        assert gateway.received.resumes and gateway.received.resumes[0]["session_id"] == gateway.session_id
        assert len(gateway.received.identifies) == 1
        burst_worker(env)

        # A follow-up in Atlas's thread carries the thread's context.
        follow = mention_payload(
            "1700000000000000011", f"{BOT_MENTION} How do I raise it?", channel_id="1700000000000000010"
        )
        gateway.message_create(follow)
        wait_for(lambda: _queued(redis_conn, 2), what="the follow-up's run")
        burst_worker(env)

    thread = api.channel("1700000000000000010")
    answers = [m["content"] for m in thread if "stop: " in m["content"]]
    assert len(answers) == 2 and "PermanentError**." in answers[0] and "Raise" in answers[1]
    said = [
        (i.get("role"), i.get("content"))
        for i in scripted_model.requests[1].body["input"]
        if i.get("type") == "message"
    ]
    assert said[:3] == [
        ("user", "What does ORB-1202 mean?"),
        ("assistant", "ORB-1202 is **PermanentError**."),
        ("user", "How do I raise it?"),
    ]
    assert list(api.threads) == ["1700000000000000010"]  # the follow-up started no second thread
    api.assert_valid()


def test_a_mention_that_arrives_while_redis_is_down_is_kept_and_answered_when_it_returns(
    gateway: GatewayStandin,
    api: DiscordAPI,
    env: dict[str, str],
    redis_url: str,
    redis_conn: redis.Redis,
    tmp_path: Path,
) -> None:
    """Discord does not redeliver a Gateway event: `atlas discord` keeps the mention until Redis is back."""
    with TcpProxy.for_redis(redis_url) as proxy:
        proc = atlas_process(["discord"], {**env, "REDIS_URL": proxy.url()}, tmp_path / "discord.log")
        try:
            wait_for(
                lambda: gateway.ready.is_set() or proc.poll() is not None, timeout=60, what="atlas discord to identify"
            )
            proxy.down()
            gateway.message_create(
                mention_payload("1700000000000000020", f"{BOT_MENTION} What does ORB-1202 mean?", channel_id=CHANNEL)
            )
            wait_for(
                lambda: "kept until Redis returns" in (tmp_path / "discord.log").read_text(), what="the mention kept"
            )
            assert not _queued(redis_conn, 1)
            proxy.up()
            wait_for(lambda: _queued(redis_conn, 1), timeout=30, what="the kept mention's run")
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    burst_worker(env)
    assert len([m for m in api.channel("1700000000000000020") if "stop: " in m["content"]]) == 1
