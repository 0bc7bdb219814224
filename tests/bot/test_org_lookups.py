"""The lookup command over several repositories (issue 38): `#42` is the channel's repository's, `owner/b#42`
and `b#42` name one; elsewhere every repository is looked in, each result naming its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.lookups import Lookup, Lookups, parse
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api  # noqa: F401
from tests.support.tools_dataset import ISSUES, make_dataset, write_issues

A, B = "acme/lib", "acme/cli"


@pytest.fixture
def lookups(tmp_path: Path) -> Lookups:
    a, b = make_dataset(tmp_path / "a"), make_dataset(tmp_path / "b")
    write_issues(a, ISSUES)
    write_issues(b, [{"id": 1, "title": "Quokka flag ignored by the CLI", "body": "quokka", "state": "open"}])
    return Lookups(a, tmp_path / "home", repos={A: a, B: b}, channel_repo={"C-cli": B}.get)


def test_issue_references_name_a_repository_or_none() -> None:
    assert parse("issue #42") == Lookup("issue", "42")
    assert parse("issue acme/cli#42") == Lookup("issue", "42", repo="acme/cli")
    assert parse("issue cli#42").text == "issue cli#42"  # what the share button replays
    assert parse("issue cli42").__class__.__name__ == "Usage"


def test_hash_number_is_the_channel_s_repository(lookups: Lookups) -> None:
    result = lookups.run(parse("issue #1"), "C-cli")  # type: ignore[arg-type]
    assert result.ok and "Quokka" in result.text and "Cron job" not in result.text


def test_a_named_repository_wins_over_the_channel(lookups: Lookups) -> None:
    for text in ("issue acme/lib#1", "issue lib#1"):
        result = lookups.run(parse(text), "C-cli")  # type: ignore[arg-type]
        assert result.ok and "Cron job ran twice" in result.text and "Quokka" not in result.text


def test_elsewhere_every_repository_is_looked_in_and_named(lookups: Lookups) -> None:
    result = lookups.run(parse("issue #1"), "C-general")  # type: ignore[arg-type]
    assert f"{A}#1" in result.text and f"{B}#1" in result.text


def test_an_unknown_repository_is_said(lookups: Lookups) -> None:
    result = lookups.run(parse("issue acme/web#1"))  # type: ignore[arg-type]
    assert not result.ok and "acme/web is not a repository this install serves" in result.text


def _discord_lookup(command: str, channel: str, **values: object) -> dict[str, object]:
    from tests.standins import discord_interactions as di

    payload = di.lookup(command, "issue", di.member("1500000000000000001"), **values)
    payload["channel_id"] = channel
    return payload


def test_discord_s_issue_lookup_knows_the_channel_s_repository_and_takes_a_named_one(
    lookups: Lookups,
    discord_api: DiscordAPI,  # noqa: F811
    redis_url: str,
    tmp_path: Path,
) -> None:
    import redis

    from atlas.org_settings import OrgSettings
    from bot.discord import commands
    from bot.discord.interactions import Interactions
    from bot.discord.rest import DiscordREST
    from tests.standins.discord_api import APPLICATION_ID
    from tests.standins.discord_fixtures import discord_settings

    org = OrgSettings(repos=(A, B), channel_repos={"1300000000000000001": B})
    settings = discord_settings(discord_api, redis_url, tmp_path / "home", lookups.data_dir, org=org)
    registered = commands.register(DiscordREST(discord_api.token, discord_api.base_url), APPLICATION_ID, "atlas-lookup")
    [issue] = [o for c in registered if c["name"] == "atlas-lookup" for o in c["options"] if o["name"] == "issue"]
    assert [o["name"] for o in issue["options"]] == ["number", "repo"]
    app = Interactions(
        settings,
        redis.Redis.from_url(redis_url),
        Lookups(lookups.data_dir, None, repos=lookups.repos, channel_repo=org.repo_for_channel),
    )
    command = settings.lookup_command

    def content(channel: str, **values: object) -> str:
        return str(app.handle(_discord_lookup(command, channel, **values))["data"]["content"])

    mapped = content("1300000000000000001", number=1)
    assert "Quokka" in mapped and "Cron job" not in mapped  # #1 is the channel's repository's
    for named in ("lib", "acme/lib"):
        shown = content("1300000000000000001", number=1, repo=named)
        assert "Cron job ran twice" in shown and "Quokka" not in shown
    elsewhere = content("1300000000000000999", number=1)
    assert "Cron job ran twice" in elsewhere and "Quokka" in elsewhere  # every repository's #1, each named
    assert f"{A}\\:" in elsewhere and f"{B}\\:" in elsewhere
    discord_api.assert_valid()


def test_a_lookup_s_issue_links_are_its_repository_s(lookups: Lookups) -> None:
    from atlas.settings import Settings
    from bot.lookups import issues_url

    settings = Settings.from_env({"ATLAS_GITHUB_REPOS": f"{A},{B}", "ATLAS_CHANNEL_REPOS": f"C-cli={B}"})
    mapped = lookups.run(parse("issue #1"), "C-cli")  # type: ignore[arg-type]
    assert mapped.repo == B and issues_url(settings, mapped) == "https://github.com/acme/cli/issues/{id}"
    named = lookups.run(parse("issue lib#1"), "C-cli")  # type: ignore[arg-type]
    assert named.repo == A and issues_url(settings, named) == "https://github.com/acme/lib/issues/{id}"
    everywhere = lookups.run(parse("issue #1"), "C-general")  # type: ignore[arg-type]
    assert everywhere.repo is None and issues_url(settings, everywhere) is None  # each result names its own
    one = Settings.from_env({"ATLAS_GITHUB_REPO": A})
    assert issues_url(one, everywhere) == one.issues_base_url
