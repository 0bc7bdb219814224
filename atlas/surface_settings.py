"""Settings of the surfaces Atlas serves to the outside (issue 35): `/mcp`'s public addresses and credited
name, Slack's rate-limit tier for history reads, and Discord's public key, each checked here once.

MCP's Streamable HTTP transport says a server MUST validate `Origin` (403 on an invalid one) and should
guard against DNS rebinding, whose requests carry a `Host` the attacker chose: `ATLAS_MCP_ORIGINS` lists
the public addresses `/mcp` is reached at, and only their hosts and loopback's are served. The token is
one credential, so whatever it proposes is credited to `ATLAS_MCP_CLIENT_NAME`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from atlas.errors import ConfigError

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
DEFAULT_CLIENT_NAME = "the MCP token's holder"
NAME_CHARS = 60
SlackTier = Literal["marketplace", "limited"]
# conversations.history and conversations.replies: (messages per page, pages a minute). Slack's 2025 limits
# give apps not in the Marketplace and not internal 1 request a minute and 15 messages a page.
SLACK_HISTORY_LIMITS: dict[SlackTier, tuple[int, int]] = {"marketplace": (200, 50), "limited": (15, 1)}


@dataclass(frozen=True)
class McpSettings:
    """Where `/mcp` may be called from, and who its token's proposals are credited to."""

    origins: tuple[str, ...] = ()  # ATLAS_MCP_ORIGINS: scheme://host[:port], no path
    client_name: str = DEFAULT_CLIENT_NAME  # ATLAS_MCP_CLIENT_NAME

    def hosts(self, console_url: str | None = None) -> frozenset[str]:
        """`Host` values served: the origins' hosts (with port when given) and the console's."""
        found = {urlsplit(o).netloc.lower() for o in self.origins}
        if console_url:
            found.add(urlsplit(console_url).netloc.lower())
        return frozenset(found)

    def allows_host(self, host: str, console_url: str | None = None) -> bool:
        host = host.strip().lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in LOOPBACK_HOSTS or host in self.hosts(console_url)

    def allows_origin(self, origin: str, console_url: str | None = None) -> bool:
        """A browser's `Origin` is served only from a listed origin or the console's own."""
        listed = {o.lower() for o in self.origins}
        if console_url:
            parts = urlsplit(console_url)
            listed.add(f"{parts.scheme}://{parts.netloc}".lower())
        return origin.strip().lower().rstrip("/") in listed


def mcp_from_env(get: Callable[[str], str | None]) -> McpSettings:
    """Read and check ATLAS_MCP_ORIGINS and ATLAS_MCP_CLIENT_NAME (a clear error naming the variable)."""
    origins = tuple(o.strip().rstrip("/") for o in (get("ATLAS_MCP_ORIGINS") or "").split(",") if o.strip())
    for origin in origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query:
            raise ConfigError(
                f"ATLAS_MCP_ORIGINS must list origins like https://atlas.example.org (scheme, host, "
                f"optional port, no path), got {origin!r}"
            )
    name = get("ATLAS_MCP_CLIENT_NAME") or DEFAULT_CLIENT_NAME
    if len(name) > NAME_CHARS or not name.isprintable():
        raise ConfigError(f"ATLAS_MCP_CLIENT_NAME must be at most {NAME_CHARS} printable characters, got {len(name)}")
    return McpSettings(origins=origins, client_name=name)


def slack_tier(raw: str | None) -> SlackTier:
    """ATLAS_SLACK_TIER: `marketplace` (or an internal app) by default, `limited` for a distributed app
    outside the Marketplace."""
    value = (raw or "marketplace").lower()
    if value not in SLACK_HISTORY_LIMITS:
        raise ConfigError(f"ATLAS_SLACK_TIER must be marketplace or limited, got {raw!r}")
    return "limited" if value == "limited" else "marketplace"


def discord_public_key(raw: str | None) -> str | None:
    """DISCORD_PUBLIC_KEY: the 64 hex digits the Developer Portal shows as the application's Public Key."""
    if raw is None:
        return None
    try:
        key = bytes.fromhex(raw)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise ConfigError(
            "DISCORD_PUBLIC_KEY must be the application's Public Key from Discord's Developer Portal: "
            f"64 hex digits, got {len(raw)} characters that are not that"
        )
    return raw
