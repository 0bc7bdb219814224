"""The surfaces' settings (issue 35): each malformed value is a ConfigError naming its variable when the
settings are read, not a failure later ("a bug: please report it" for a Discord key that is not hex)."""

from __future__ import annotations

import pytest

from atlas.errors import ConfigError
from atlas.settings import Settings

KEY = "a1" * 32


@pytest.mark.parametrize("raw", ["not-a-hex-key", "a1" * 31, "zz" * 32, KEY + "00"])
def test_a_discord_public_key_that_is_not_32_hex_bytes_names_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match="DISCORD_PUBLIC_KEY must be the application's Public Key"):
        Settings.from_env({"DISCORD_PUBLIC_KEY": raw})
    assert Settings.from_env({"DISCORD_PUBLIC_KEY": KEY}).discord_public_key == KEY


def test_mcp_origins_are_origins_and_their_hosts_are_served() -> None:
    with pytest.raises(ConfigError, match="ATLAS_MCP_ORIGINS"):
        Settings.from_env({"ATLAS_MCP_ORIGINS": "https://atlas.example.org/mcp"})
    with pytest.raises(ConfigError, match="ATLAS_MCP_ORIGINS"):
        Settings.from_env({"ATLAS_MCP_ORIGINS": "atlas.example.org"})
    mcp = Settings.from_env({"ATLAS_MCP_ORIGINS": "https://atlas.example.org/, http://10.0.0.5:3000"}).mcp
    assert mcp.origins == ("https://atlas.example.org", "http://10.0.0.5:3000")
    assert mcp.allows_host("atlas.example.org") and mcp.allows_host("10.0.0.5:3000")
    assert mcp.allows_host("127.0.0.1:3000") and mcp.allows_host("[::1]:3000")
    assert not mcp.allows_host("evil.example") and not mcp.allows_host("10.0.0.5:9999")
    assert mcp.allows_origin("https://atlas.example.org") and not mcp.allows_origin("http://atlas.example.org")
    assert mcp.allows_origin("https://console.example", "https://console.example/console/")


def test_the_slack_tier_is_one_of_two() -> None:
    assert Settings.from_env({}).slack_tier == "marketplace"
    assert Settings.from_env({"ATLAS_SLACK_TIER": "limited"}).slack_tier == "limited"
    with pytest.raises(ConfigError, match="ATLAS_SLACK_TIER"):
        Settings.from_env({"ATLAS_SLACK_TIER": "tier3"})
