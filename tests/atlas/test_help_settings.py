"""The help channels' settings: read once, each malformed id refused naming its variable."""

from __future__ import annotations

import pytest

from atlas.errors import ConfigError
from atlas.settings import Settings


def test_help_settings_are_read_and_split_by_platform() -> None:
    s = Settings.from_env(
        {
            "ATLAS_HELP_CHANNELS": "C0HELP, G0PRIVATE",
            "ATLAS_DISCORD_HELP_CHANNELS": "1300000000000000601",
            "ATLAS_HELP_MAINTAINERS": "U0MAINT,S0TEAM,1600000000000000041",
            "ATLAS_HANDOFF": "S0TEAM,1600000000000000042",
            "ATLAS_HELP_RATE": "5",
        }
    )
    assert s.help.slack_channels == {"C0HELP", "G0PRIVATE"} and s.help.discord_channels == {"1300000000000000601"}
    assert (
        s.help.slack_users == {"U0MAINT"}
        and s.help.slack_groups == ("S0TEAM",)
        and s.help.discord_roles == {"1600000000000000041"}
    )
    assert s.help.slack_handoff() == "<!subteam^S0TEAM>" and s.help.discord_handoff() == ("1600000000000000042",)
    assert s.help.rate_per_hour == 5 and Settings.from_env({}).help.rate_per_hour == 20


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ATLAS_HELP_CHANNELS", "#help"),
        ("ATLAS_DISCORD_HELP_CHANNELS", "C0HELP"),
        ("ATLAS_HELP_MAINTAINERS", "@alice"),
        ("ATLAS_HANDOFF", "<!subteam^S1>"),
        ("ATLAS_HELP_RATE", "0"),
        ("ATLAS_HELP_RATE", "lots"),
    ],
)
def test_a_malformed_help_setting_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: value})
