"""Help channels' settings (issue 26): where Atlas answers without a mention, who it steps back for,
whom it hands off to, and how many unprompted runs a channel may start in an hour.

`ATLAS_HELP_CHANNELS` are Slack channel ids (C..., G...), `ATLAS_DISCORD_HELP_CHANNELS` Discord text or
forum channel ids. `ATLAS_HELP_MAINTAINERS` and `ATLAS_HANDOFF` take a comma-separated mix of Slack user
ids (U..., W...), Slack user group ids (S...) and Discord role ids (digits); each platform reads its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from atlas.errors import ConfigError

if TYPE_CHECKING:
    from atlas.channel_config import ChannelsFile

DEFAULT_RATE_PER_HOUR = 20
DEFAULT_PERSON_PER_HOUR = 5
_SLACK_CHANNEL = re.compile(r"^[CG][A-Z0-9]{2,}$")
_SLACK_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")
_SLACK_GROUP = re.compile(r"^S[A-Z0-9]{2,}$")
_SNOWFLAKE = re.compile(r"^[0-9]{5,20}$")


@dataclass(frozen=True)
class HelpSettings:
    """Help channels on Slack and Discord; empty lists: no help channels, mentions only."""

    slack_channels: frozenset[str] = frozenset()  # ATLAS_HELP_CHANNELS
    discord_channels: frozenset[str] = frozenset()  # ATLAS_DISCORD_HELP_CHANNELS
    maintainers: tuple[
        str, ...
    ] = ()  # ATLAS_HELP_MAINTAINERS: besides the approvers, whose reply makes Atlas step back
    handoff: tuple[str, ...] = ()  # ATLAS_HANDOFF: whom Atlas mentions when it is not confident; none: it stays silent
    rate_per_hour: int = DEFAULT_RATE_PER_HOUR  # ATLAS_HELP_RATE: unprompted runs per help channel per hour
    person_per_hour: int = DEFAULT_PERSON_PER_HOUR  # ATLAS_HELP_PERSON_RATE: of those, one person's in one channel
    # atlas.toml (atlas/channel_config.py): a channel's own hand-off, and the channels whose `help` flipped what
    # the environment's lists say (the file wins; `atlas config check` says so for each)
    channel_handoff: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    overridden: frozenset[str] = frozenset()

    def with_file(self, file: ChannelsFile) -> HelpSettings:
        """These settings with atlas.toml's channels applied: its `help` adds or removes a channel from the
        environment's lists, its `handoff` replaces ATLAS_HANDOFF in that channel."""
        lists = {"slack": set(self.slack_channels), "discord": set(self.discord_channels)}
        flipped = set()
        for channel in file.channels:
            if channel.help is not None and (channel.channel in lists[channel.platform]) != channel.help:
                flipped.add(channel.channel)
                (lists[channel.platform].add if channel.help else lists[channel.platform].discard)(channel.channel)
        handoff = {c.channel: c.handoff for c in file.channels if c.handoff is not None}
        return replace(
            self,
            slack_channels=frozenset(lists["slack"]),
            discord_channels=frozenset(lists["discord"]),
            channel_handoff=handoff,
            overridden=frozenset(flipped),
        )

    def handoff_of(self, channel: str | None) -> tuple[str, ...]:
        """The hand-off of `channel`: its own from atlas.toml, else ATLAS_HANDOFF."""
        return self.channel_handoff.get(channel or "", self.handoff)

    @property
    def slack_users(self) -> frozenset[str]:
        return frozenset(m for m in self.maintainers if _SLACK_USER.match(m))

    @property
    def slack_groups(self) -> tuple[str, ...]:
        return tuple(m for m in self.maintainers if _SLACK_GROUP.match(m))

    @property
    def discord_roles(self) -> frozenset[str]:
        return frozenset(m for m in self.maintainers if _SNOWFLAKE.match(m))

    def slack_handoff(self, channel: str | None = None) -> str:
        """The Slack mentions of `channel`'s hand-off ("" when none is set for Slack)."""
        return " ".join(
            f"<!subteam^{h}>" if _SLACK_GROUP.match(h) else f"<@{h}>"
            for h in self.handoff_of(channel)
            if not _SNOWFLAKE.match(h)
        )

    def discord_handoff(self, channel: str | None = None) -> tuple[str, ...]:
        """The Discord role ids of `channel`'s hand-off."""
        return tuple(h for h in self.handoff_of(channel) if _SNOWFLAKE.match(h))


def _ids(name: str, raw: str | None, forms: tuple[re.Pattern[str], ...], what: str) -> tuple[str, ...]:
    found = tuple(part.strip() for part in (raw or "").split(",") if part.strip())
    for value in found:
        if not any(form.match(value) for form in forms):
            raise ConfigError(f"{name} must be a comma-separated list of {what}, got {value!r}")
    return found


def help_from_env(get: Callable[[str], str | None]) -> HelpSettings:
    """Read and check the help channels' variables; a malformed id names its variable."""
    people = (_SLACK_USER, _SLACK_GROUP, _SNOWFLAKE)
    people_what = "Slack user ids (U...), Slack user group ids (S...) or Discord role ids (digits)"
    rate = _per_hour(get, "ATLAS_HELP_RATE", DEFAULT_RATE_PER_HOUR, "runs per channel per hour")
    person = _per_hour(get, "ATLAS_HELP_PERSON_RATE", DEFAULT_PERSON_PER_HOUR, "runs per person per channel per hour")
    return HelpSettings(
        slack_channels=frozenset(
            _ids(
                "ATLAS_HELP_CHANNELS", get("ATLAS_HELP_CHANNELS"), (_SLACK_CHANNEL,), "Slack channel ids (C... or G...)"
            )
        ),
        discord_channels=frozenset(
            _ids(
                "ATLAS_DISCORD_HELP_CHANNELS",
                get("ATLAS_DISCORD_HELP_CHANNELS"),
                (_SNOWFLAKE,),
                "Discord channel ids (digits)",
            )
        ),
        maintainers=_ids("ATLAS_HELP_MAINTAINERS", get("ATLAS_HELP_MAINTAINERS"), people, people_what),
        handoff=_ids("ATLAS_HANDOFF", get("ATLAS_HANDOFF"), people, people_what),
        rate_per_hour=rate,
        person_per_hour=person,
    )


def _per_hour(get: Callable[[str], str | None], name: str, default: int, what: str) -> int:
    raw = get(name)
    if raw is None:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"{name} must be a whole number of {what}, 1 or more, got {raw!r}")
    return int(raw)
