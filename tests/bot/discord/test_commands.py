"""The ask command and the lookup command never share a name on Discord: with ATLAS_GITHUB_REPO set
(whose default slash command is `/atlas`) the lookup command is named from the project, and both work."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import redis

from atlas.settings import Settings
from bot.discord import commands
from bot.discord.interactions import Interactions
from bot.discord.rest import DiscordREST
from bot.lookups import Lookups
from tests.standins import discord_interactions as di
from tests.standins.discord_api import APPLICATION_ID, DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.support.tools_dataset import make_dataset

WHO = di.member("1500000000000000001")


def test_with_a_github_repo_the_lookup_command_is_the_project_and_both_commands_answer(
    discord_api: DiscordAPI,
    redis_url: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,  # noqa: F811
) -> None:
    from_env = Settings.from_env(
        {
            "ATLAS_GITHUB_REPO": "acme/rocket",
            "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
            "ATLAS_HOME": str(tmp_path / "home"),
        }
    )
    assert from_env.slash_command == "/atlas" and from_env.lookup_command == "rocket"

    settings = discord_settings(
        discord_api, redis_url, tmp_path / "home", from_env.data_dir, slash_command="/atlas", project=from_env.project
    )
    registered = commands.register(
        DiscordREST(discord_api.token, discord_api.base_url), APPLICATION_ID, settings.lookup_command
    )
    assert sorted(c["name"] for c in registered) == ["atlas", "rocket"]
    with caplog.at_level(logging.INFO, logger="atlas.discord.interactions"):
        app = Interactions(
            settings, redis.Redis.from_url(redis_url), Lookups.open(settings.data_dir, settings.home, False)
        )
    assert "lookup command is /rocket" in caplog.text
    found = app.handle(di.lookup("rocket", "issue", WHO, number=3))
    assert "Reconnect storm" in found["data"]["content"] and "/rocket" not in found["data"]["content"]
    assert "/rocket issue" in app.handle(di.lookup("rocket", "help", WHO))["data"]["content"]
    discord_api.assert_valid()


@pytest.mark.parametrize(
    ("project", "expected"), [("Atlas", "atlas-lookup"), ("  ", "atlas-lookup"), ("My Repo.js", "my-repo-js")]
)
def test_the_rule_never_gives_the_ask_commands_name(project: str, expected: str, tmp_path: Path) -> None:
    from atlas.project_settings import Project

    settings = Settings(home=tmp_path, slash_command="/Atlas", project=Project(project, "x"))
    assert settings.lookup_command == expected != commands.ASK_COMMAND
    with pytest.raises(ValueError, match="cannot be named /atlas"):
        commands.definitions("atlas")
