"""A variable's text as a typed value, refused with a `ConfigError` that names the variable.

`EnvValues` reads one mapping (the environment, handed over by `Settings.from_env`: nothing here reads
os.environ); the functions below check the variables whose form is more than a number or a flag. No
message repeats a value that may be secret (a Redis URL's password, an MCP token).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from atlas.errors import ConfigError

REDIS_URL_FORMS = "redis://[[user]:password@]host[:port][/db], rediss://... (TLS) or unix:///path/to/socket"
MAX_ASSISTANT_PROMPTS = 4  # Slack shows at most four suggested prompts in an assistant thread


class EnvValues:
    """Typed reads of one environment mapping; a blank value is an unset one."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    def get(self, name: str) -> str | None:
        value = self.env.get(name, "").strip()
        return value or None

    def number(self, name: str, default: float, kind: Callable[[str], float] = float) -> float:
        raw = self.get(name)
        if raw is None:
            return default
        try:
            value = kind(raw)
        except ValueError:
            raise ConfigError(f"{name} must be a number, got {raw!r}") from None
        if not math.isfinite(value):  # float() reads nan, inf and 1e999: no budget, timeout or wait can be those
            raise ConfigError(f"{name} must be a finite number, got {raw!r}")
        return value

    def flag(self, name: str, default: bool) -> bool:
        raw = self.get(name)
        if raw is None:
            return default
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{name} must be true or false, got {raw!r}")

    def positive(self, name: str, default: float, kind: type = float) -> Any:
        value = self.number(name, default, kind)
        if value <= 0:
            raise ConfigError(f"{name} must be above 0, got {value}")
        return value

    def names(self, name: str) -> tuple[str, ...]:
        """A comma-separated list (user ids), blanks dropped."""
        return tuple(u.strip() for u in (self.get(name) or "").split(",") if u.strip())


def price_parts(raw: str) -> tuple[float, float, float]:
    """ATLAS_PRICE: "input,cached_input,output" dollars per million tokens."""
    try:
        input_, cached, output = (float(p) for p in raw.split(","))
        if not all(math.isfinite(p) for p in (input_, cached, output)):
            raise ValueError("not finite")
    except (TypeError, ValueError):
        raise ConfigError(
            f"ATLAS_PRICE must be 'input,cached_input,output' dollars per million tokens, got {raw!r}"
        ) from None
    return input_, cached, output


def assistant_prompts(raw: str) -> tuple[str, ...]:
    """ATLAS_ASSISTANT_PROMPTS: "first prompt | second prompt | ...", at most what Slack shows."""
    prompts = tuple(p.strip() for p in raw.split("|") if p.strip())
    if len(prompts) > MAX_ASSISTANT_PROMPTS:
        raise ConfigError(
            f"ATLAS_ASSISTANT_PROMPTS has {len(prompts)} prompts; Slack shows at most {MAX_ASSISTANT_PROMPTS}"
        )
    return prompts


def redis_url(raw: str | None) -> str | None:
    """REDIS_URL as redis-py will read it, refused here (a configuration error) rather than at the
    first connection. The message never repeats the URL: it may hold a password."""
    if raw is None:
        return None
    from redis.connection import parse_url  # only when REDIS_URL is set: redis-py is not needed to read settings

    try:
        if not raw.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("no redis://, rediss:// or unix:// scheme")
        if raw.startswith("unix://") and not raw.removeprefix("unix://").split("?")[0]:
            raise ValueError("a unix:// URL needs the socket's path")
        parse_url(raw)
    except ValueError as exc:
        raise ConfigError(f"REDIS_URL is not a Redis URL ({exc}); expected {REDIS_URL_FORMS}") from None
    return raw


def retention_days(raw: str | None, default: int) -> int:
    """ATLAS_AUDIT_RETENTION_DAYS: a whole number of days, 0 or more (0 keeps the audit log forever)."""
    if raw is None:
        return default
    if not raw.isdigit():
        raise ConfigError(
            f"ATLAS_AUDIT_RETENTION_DAYS must be a whole number of days, 0 or more (0 keeps everything), got {raw!r}"
        )
    return int(raw)


def mcp_token(raw: str | None) -> str | None:
    """ATLAS_MCP_TOKEN: at least 16 characters, no spaces (it travels in an Authorization header)."""
    if raw is None:
        return None
    if len(raw) < 16 or not raw.isascii() or any(c.isspace() for c in raw):
        raise ConfigError(
            "ATLAS_MCP_TOKEN must be at least 16 ASCII characters without spaces "
            f"(it is the bearer token MCP clients send), got {len(raw)} characters"
        )
    return raw


def cost_limit(raw: str | None) -> float | None:
    """ATLAS_DAILY_COST_LIMIT: US dollars per UTC day, 0 or more (0: no model call at all); unset: no cap."""
    if raw is None:
        return None
    try:
        value = float(raw.removeprefix("$"))
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"ATLAS_DAILY_COST_LIMIT must be US dollars per day, 0 or more (e.g. 25), got {raw!r}")
    return value
