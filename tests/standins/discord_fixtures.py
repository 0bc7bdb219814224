"""Pytest fixtures for Discord: the REST stand-in and the interactions endpoint behind waitress.

Import them in a test module:  from tests.standins.discord_fixtures import discord_api, endpoint  # noqa: F401
(`gateway` and `gateway_api`: the Gateway stand-in, and a REST stand-in whose /gateway/bot points at it.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from atlas.settings import Settings
from bot.discord.endpoint import endpoint as build_endpoint
from bot.web.serve import DISCORD_PATH, http_server
from tests.standins.discord_api import APPLICATION_ID, DiscordAPI
from tests.standins.discord_gateway import GatewayStandin
from tests.standins.discord_interactions import PUBLIC_KEY, InteractionSender
from tests.standins.slack_fixtures import BackgroundServer
from tests.support.tools_dataset import make_dataset
from workers.process import runtime


@pytest.fixture
def discord_api() -> Iterator[DiscordAPI]:
    with DiscordAPI() as api:
        yield api


@pytest.fixture
def gateway() -> Iterator[GatewayStandin]:
    with GatewayStandin() as standin:
        yield standin


@pytest.fixture
def gateway_api(gateway: GatewayStandin) -> Iterator[DiscordAPI]:
    with DiscordAPI(gateway_url=gateway.url) as standin:
        yield standin


def discord_settings(api: DiscordAPI, redis_url: str, home: Path, data: Path, **overrides: object) -> Settings:
    """Settings as `atlas serve` would read them from a Discord-only test environment."""
    return Settings(
        home=home,
        redis_url=redis_url,
        data_dir=data,
        discord_application_id=APPLICATION_ID,
        discord_public_key=PUBLIC_KEY,
        discord_bot_token=api.token,
        discord_api_url=api.base_url,
        queue_name="atlas",
        **overrides,
    )  # type: ignore[arg-type]


@pytest.fixture
def rt(discord_api: DiscordAPI, redis_url: str, tmp_path: Path) -> Iterator[runtime.Runtime]:
    """The worker's runtime (as a job has it) with only Discord configured, on a small dataset."""
    built = runtime.build(discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data")))
    runtime.install(built)
    try:
        yield built
    finally:
        runtime._installed = None


@dataclass
class RunningEndpoint:
    settings: Settings
    send: InteractionSender
    conn: redis.Redis


@pytest.fixture
def endpoint(discord_api: DiscordAPI, redis_url: str, tmp_path: Path) -> Iterator[RunningEndpoint]:
    """`atlas serve`'s web server with only Discord configured, on a small dataset and the test Redis."""
    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    server = BackgroundServer(http_server(None, host="127.0.0.1", port=0, discord=build_endpoint(settings))).start()
    try:
        yield RunningEndpoint(
            settings,
            InteractionSender(f"http://127.0.0.1:{server.port}{DISCORD_PATH}", discord_api),
            redis.Redis.from_url(redis_url),
        )
    finally:
        server.close()
