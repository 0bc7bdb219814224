"""atlas.toml (issue 38): read once into typed per-channel settings; a bad file is refused with its line and
reason; the file wins for the channels it names, the environment is the default for everything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.channel_plan import longest_seconds, plan
from atlas.settings import ConfigError, Settings

GOOD = """\
# two channels of one organization
[channels.C0HELP]
repo = "orbit-labs/orbit"
help = true
handoff = ["S0MAINT"]
model = "gpt-6-sol"
price = [1.0, 0.1, 4.0]
max_steps = 4
max_seconds = 90
daily_cost_limit = 2.5

[channels."112233445566778899"]
repo = "orbit-labs/orbit-cli"
help = false
"""


def _settings(tmp_path: Path, text: str, **env: str) -> Settings:
    path = tmp_path / "atlas.toml"
    path.write_text(text)
    return Settings.from_env({"ATLAS_CONFIG": str(path), **env})


def test_a_channel_table_becomes_its_typed_settings_and_the_environment_fills_the_rest(tmp_path: Path) -> None:
    settings = _settings(tmp_path, GOOD, OPENAI_API_KEY="sk-test", ATLAS_MAX_TOKENS="5000", ATLAS_HANDOFF="U0ALICE")
    helpdesk = plan(settings, "C0HELP")
    assert (helpdesk.repo, helpdesk.help, helpdesk.handoff, helpdesk.model) == (
        "orbit-labs/orbit",
        True,
        ("S0MAINT",),
        "gpt-6-sol",
    )
    assert (helpdesk.budget.max_steps, helpdesk.budget.max_seconds, helpdesk.budget.max_tokens) == (4, 90.0, 5000)
    assert (
        helpdesk.price.output == 4.0 and helpdesk.daily_cost_limit == 2.5 and helpdesk.spend_channel == "slack:C0HELP"
    )
    assert helpdesk.sources["max_tokens"] == "environment" and helpdesk.sources["max_steps"] == "atlas.toml"
    other = plan(settings, "C0ELSEWHERE", "slack")  # a channel the file does not name: the environment's
    assert (other.repo, other.help, other.handoff, other.model, other.daily_cost_limit) == (
        None,
        False,
        ("U0ALICE",),
        settings.model,
        None,
    )
    assert settings.help.slack_channels == {"C0HELP"} and settings.help.slack_handoff("C0HELP") == "<!subteam^S0MAINT>"
    assert plan(settings, "112233445566778899").platform == "discord" and longest_seconds(settings) == 90.0


def test_the_file_wins_over_the_environment_for_its_channels_and_says_so(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        GOOD,
        ATLAS_HELP_CHANNELS="C0OTHER",
        ATLAS_DISCORD_HELP_CHANNELS="112233445566778899,99887766554433",
    )
    assert settings.help.slack_channels == {"C0HELP", "C0OTHER"}
    assert settings.help.discord_channels == {"99887766554433"}  # help = false took it out
    assert settings.help.overridden == {"C0HELP", "112233445566778899"}
    assert plan(settings, "112233445566778899").sources["help"] == "atlas.toml"


def test_the_file_is_part_of_the_settings_fingerprint(tmp_path: Path) -> None:
    plain = Settings.from_env({})
    first = _settings(tmp_path, GOOD)
    second = _settings(tmp_path, GOOD.replace("max_steps = 4", "max_steps = 5"))
    capped = _settings(tmp_path, GOOD.replace("2.5", "9"))
    assert len({plain.fingerprint, first.fingerprint, second.fingerprint}) == 3
    assert capped.fingerprint == first.fingerprint  # a cap is the worker's to hold, not a different answer


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[channels.C0HELP]\nrepo = \n", "line 2, column 8"),
        ("[channels.C0HELP]\nhelp = true\nmodle = 'x'\n", "line 3: channel C0HELP, key 'modle': unknown key"),
        ("[channels.C0HELP]\n\nmax_steps = '4'\n", "line 3: channel C0HELP, key 'max_steps': must be a whole number"),
        ("[channels.C0HELP]\nmax_steps = true\n", "key 'max_steps': must be a whole number"),
        ("[channels.C0HELP]\nrepo = 'orbit'\n", "line 2: channel C0HELP, key 'repo': must be OWNER/REPO"),
        ("[channels.C0HELP]\nhandoff = ['1234567890']\n", "key 'handoff': must be a list of Slack user ids"),
        ("[channels.'11223344556677']\nhandoff = ['U0X']\n", "key 'handoff': must be a list of Discord role ids"),
        ("[channels.C0HELP]\ndaily_cost_limit = -1\n", "key 'daily_cost_limit': must be US dollars per day"),
        ("[channels.C0HELP]\nprice = [1, 2]\n", "key 'price': must be [input, cached_input, output]"),
        ("[channels.general]\nhelp = true\n", "line 1: channel general: not a Slack channel id"),
        ("model = 'x'\n", "line 1: unknown key 'model'"),
    ],
)
def test_a_bad_file_is_refused_with_its_line_the_channel_the_key_and_the_reason(
    tmp_path: Path, text: str, said: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        _settings(tmp_path, text)
    assert said in str(refused.value) and str(tmp_path / "atlas.toml") in str(refused.value)


def test_a_missing_file_and_a_bad_daily_limit_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ATLAS_CONFIG: cannot read"):
        Settings.from_env({"ATLAS_CONFIG": str(tmp_path / "nowhere.toml")})
    with pytest.raises(ConfigError, match="ATLAS_DAILY_COST_LIMIT must be US dollars"):
        Settings.from_env({"ATLAS_DAILY_COST_LIMIT": "lots"})
    assert Settings.from_env({"ATLAS_DAILY_COST_LIMIT": "$25"}).daily_cost_limit == 25.0
