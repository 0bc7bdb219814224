"""What one channel will do: atlas.toml's values for it over the environment's install-wide defaults.

Why the file wins: it is the more specific of the two (it names the channel), so an operator who writes a
channel's table means that channel to differ; the environment stays the default for every channel the file
does not name and every key a table leaves out. Each value says where it came from, which `atlas config
check` prints, so a disagreement is never silent.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from atlas.run_limits import Budget

if TYPE_CHECKING:
    from atlas.channel_config import ChannelConfig, ChannelPlatform
    from atlas.settings import Price, Settings

Source = Literal["atlas.toml", "environment"]


@dataclass(frozen=True)
class ChannelPlan:
    """One channel's effective settings, and where each came from."""

    channel: str | None
    platform: ChannelPlatform | None
    repo: str | None  # the channel's repository; None: the install's (ATLAS_GITHUB_REPO or the demo)
    help: bool
    handoff: tuple[str, ...]
    model: str  # "offline" when no model is configured
    price: Price
    budget: Budget
    daily_cost_limit: float | None  # None: no cap of its own (ATLAS_DAILY_COST_LIMIT still holds)
    sources: dict[str, Source]

    @property
    def spend_channel(self) -> str | None:
        """The channel's field in the day's spend (workers/agent/spend.py): `slack:C123`; None outside a channel."""
        return f"{self.platform}:{self.channel}" if self.platform and self.channel else None


def install_repo(settings: Settings) -> str:
    """The repository a run is about when its channel names none: the first served (ATLAS_GITHUB_REPOS, or
    ATLAS_GITHUB_REPO), or the demo project."""
    if settings.org.repos:
        return settings.org.repos[0]
    return settings.github.repo if settings.github is not None else f"demo:{settings.project.name}"


def plan(settings: Settings, channel: str | None, platform: str | None = None) -> ChannelPlan:
    """`channel`'s settings (a run's `Origin.channel`); a channel atlas.toml does not name, or none (the CLI,
    triage): the environment's."""
    own = settings.channels.get(channel)
    kind: ChannelPlatform | None = own.platform if own is not None else None
    if kind is None and platform in ("slack", "discord"):
        kind = "slack" if platform == "slack" else "discord"
    sources: dict[str, Source] = {}
    for key in ("repo", "help", "handoff", "model", "daily_cost_limit"):  # the file wins for the channels it names
        sources[key] = "atlas.toml" if own is not None and getattr(own, key) is not None else "environment"
    help_on = channel in settings.help.slack_channels | settings.help.discord_channels if channel else False
    handoff = settings.help.handoff_of(channel)
    model = own.model if own is not None and own.model is not None else settings.model
    budget = _budget(settings.budget, own, sources)
    return ChannelPlan(
        channel=channel,
        platform=kind,
        repo=settings.org.repo_for_channel(channel),  # atlas.toml's repo, else ATLAS_CHANNEL_REPOS' (merged)
        help=help_on,
        handoff=handoff,
        model="offline" if settings.offline else model,
        price=settings.price_of(model),
        budget=budget,
        daily_cost_limit=own.daily_cost_limit if own else None,
        sources=sources,
    )


def _budget(default: Budget, own: ChannelConfig | None, sources: dict[str, Source]) -> Budget:
    """The environment's budget (ATLAS_MAX_STEPS and kin) with the channel's own steps, tokens and seconds."""
    if own is None:
        for key in ("max_steps", "max_tokens", "max_seconds"):
            sources[key] = "environment"
        return default
    for key in ("max_steps", "max_tokens", "max_seconds"):
        sources[key] = "atlas.toml" if getattr(own, key) is not None else "environment"
    return replace(
        default,
        max_steps=default.max_steps if own.max_steps is None else own.max_steps,
        max_tokens=default.max_tokens if own.max_tokens is None else own.max_tokens,
        max_seconds=default.max_seconds if own.max_seconds is None else own.max_seconds,
    )


def longest_seconds(settings: Settings) -> float:
    """The most working seconds any run may take: the environment's or a channel's (a job's timeout covers it)."""
    return max([settings.budget.max_seconds, *(c.max_seconds for c in settings.channels.channels if c.max_seconds)])
