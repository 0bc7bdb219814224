"""atlas.toml (issue 38): per-channel settings in one file, beside the environment.

`ATLAS_CONFIG` names the file; it is read once at the edge (`Settings.from_env`) into `ChannelConfig` values.
Every refusal is a `ConfigError` naming the file, the line, the channel and the key, so a bad file stops
`atlas serve` and `atlas worker` before anything starts. The file wins for the channels it names; the
environment stays the install-wide default for every other channel and every key a channel leaves out
(atlas/channel_plan.py resolves the two, and `atlas config check` prints which one each value came from).
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from atlas.errors import ConfigError
from atlas.project_settings import repo_name_problem

ChannelPlatform = Literal["slack", "discord"]
_SLACK_CHANNEL = re.compile(r"^[CG][A-Z0-9]{2,}$")
_SNOWFLAKE = re.compile(r"^[0-9]{5,20}$")
_SLACK_PERSON = re.compile(r"^[UWS][A-Z0-9]{2,}$")  # a user (U..., W...) or a user group (S...)
KEYS = (
    "repo",
    "help",
    "handoff",
    "model",
    "price",
    "max_steps",
    "max_tokens",
    "max_seconds",
    "daily_cost_limit",
)


@dataclass(frozen=True)
class ChannelConfig:
    """What the file says of one channel; None: the key is left out (the environment's value holds)."""

    channel: str  # the Slack channel id (C..., G...) or the Discord channel id (digits)
    platform: ChannelPlatform
    repo: str | None = None  # OWNER/REPO this channel is about (ATLAS_CHANNEL_REPOS's value for it)
    help: bool | None = None  # a help channel (answered without a mention) or not
    handoff: tuple[str, ...] | None = None  # whom a help run that is not confident mentions
    model: str | None = None  # the model a run asked here uses
    price: tuple[float, float, float] | None = None  # that model's input, cached input, output $ per 1M tokens
    max_steps: int | None = None
    max_tokens: int | None = None
    max_seconds: float | None = None
    daily_cost_limit: float | None = None  # USD per UTC day for the runs asked here

    def answer_settings(self) -> list[Any]:
        """What of this channel changes an answer (Settings.fingerprint); the cap does not."""
        return [
            self.repo,
            self.help,
            self.handoff,
            self.model,
            self.price,
            self.max_steps,
            self.max_tokens,
            self.max_seconds,
        ]


@dataclass(frozen=True)
class ChannelsFile:
    """The file as read: its path and its channels by id (empty without ATLAS_CONFIG)."""

    path: Path | None = None
    channels: tuple[ChannelConfig, ...] = ()

    def get(self, channel: str | None) -> ChannelConfig | None:
        return next((c for c in self.channels if c.channel == channel), None) if channel else None

    def of(self, platform: ChannelPlatform) -> tuple[ChannelConfig, ...]:
        return tuple(c for c in self.channels if c.platform == platform)

    def repos(self) -> dict[str, str]:
        """Channel id -> OWNER/REPO for the channels that name one (what ATLAS_CHANNEL_REPOS maps)."""
        return {c.channel: c.repo for c in self.channels if c.repo is not None}


def read(raw_path: str | None) -> ChannelsFile:
    """The file ATLAS_CONFIG names, checked; no path: no file, every channel as the environment says."""
    if raw_path is None:
        return ChannelsFile()
    path = Path(raw_path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"ATLAS_CONFIG: cannot read {path} ({exc.strerror or type(exc).__name__})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"ATLAS_CONFIG: {path} is not UTF-8 text") from None
    return parse(text, path)


def parse(text: str, path: Path) -> ChannelsFile:
    """`text` as atlas.toml; a ConfigError with `path`, the line and the reason otherwise."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # its message ends "(at line L, column C)"
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    lines = text.splitlines()
    for key in data:
        if key != "channels":
            raise ConfigError(f"{path} line {_line(lines, None, key)}: unknown key {key!r}; only [channels.ID] tables")
    tables = data.get("channels", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path} line {_line(lines, None, 'channels')}: channels must be tables, [channels.ID]")
    return ChannelsFile(path, tuple(_channel(path, lines, cid, table) for cid, table in tables.items()))


def _channel(path: Path, lines: list[str], cid: str, table: Any) -> ChannelConfig:
    where = f"{path} line {_line(lines, cid, None)}: channel {cid}"
    platform: ChannelPlatform
    if _SLACK_CHANNEL.match(cid):
        platform = "slack"
    elif _SNOWFLAKE.match(cid):
        platform = "discord"
    else:
        raise ConfigError(f"{where}: not a Slack channel id (C..., G...) nor a Discord channel id (digits)")
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table of settings, [channels.{cid}]")
    values: dict[str, Any] = {}
    for key, value in table.items():
        at = f"{path} line {_line(lines, cid, key)}: channel {cid}, key {key!r}"
        if key not in KEYS:
            raise ConfigError(f"{at}: unknown key; the keys are {', '.join(KEYS)}")
        values[key] = _value(at, key, value, platform)
    return ChannelConfig(cid, platform, **values)


def _value(at: str, key: str, value: Any, platform: ChannelPlatform) -> Any:
    """One key's value checked for its type and range; a ConfigError that says what was expected."""
    if key == "repo":
        problem = repo_name_problem(value) if isinstance(value, str) else "expected a string"
        if problem:
            raise ConfigError(f"{at}: must be OWNER/REPO ({problem}), got {value!r}")
        return value
    if key == "help":
        if not isinstance(value, bool):
            raise ConfigError(f"{at}: must be true or false, got {value!r}")
        return value
    if key == "handoff":
        return _handoff(at, value, platform)
    if key == "model":
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{at}: must be a model's name, got {value!r}")
        return value.strip()
    if key == "price":
        if not (isinstance(value, list) and len(value) == 3 and all(_number(v) and v >= 0 for v in value)):
            raise ConfigError(f"{at}: must be [input, cached_input, output] dollars per million tokens, got {value!r}")
        return tuple(float(v) for v in value)
    if key in ("max_steps", "max_tokens"):
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            raise ConfigError(f"{at}: must be a whole number, 1 or more, got {value!r}")
        return value
    if key == "max_seconds":
        if not (_number(value) and value > 0):
            raise ConfigError(f"{at}: must be a number of seconds above 0, got {value!r}")
        return float(value)
    if not (_number(value) and value >= 0):  # daily_cost_limit
        raise ConfigError(f"{at}: must be US dollars per day, 0 or more, got {value!r}")
    return float(value)


def _handoff(at: str, value: Any, platform: ChannelPlatform) -> tuple[str, ...]:
    form, what = (
        (_SLACK_PERSON, "Slack user ids (U..., W...) or user group ids (S...)")
        if platform == "slack"
        else (_SNOWFLAKE, "Discord role ids (digits)")
    )
    if not isinstance(value, list) or not all(isinstance(v, str) and form.match(v) for v in value):
        raise ConfigError(f"{at}: must be a list of {what}, got {value!r}")
    return tuple(value)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _line(lines: list[str], channel: str | None, key: str | None) -> int:
    """Where `key` of [channels.`channel`] is written (the table's header without a key; a top-level key
    without a channel): tomllib's values carry no position, so the text is searched; 1 when not found."""
    start, end = 0, len(lines)
    if channel is not None:
        header = re.compile(
            rf"^\s*\[\s*channels\s*\.\s*(\"{re.escape(channel)}\"|'{re.escape(channel)}'|"
            rf"{re.escape(channel)})\s*\]"
        )
        found = next((n for n, line in enumerate(lines) if header.match(line)), None)
        if found is None:
            return 1
        if key is None:
            return found + 1
        start = found + 1
        end = next((n for n in range(start, len(lines)) if lines[n].lstrip().startswith("[")), len(lines))
    if key is None:
        return 1
    assignment = re.compile(rf"^\s*(\"{re.escape(key)}\"|{re.escape(key)})\s*[=.]")
    for n in range(start, end):
        if assignment.match(lines[n]) or (channel is None and re.match(rf"^\s*\[\s*{re.escape(key)}\b", lines[n])):
            return n + 1
    return start + 1 if channel is not None else 1
