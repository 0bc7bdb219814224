"""The chat-platform port: how a run reports on the platform it came from, and the one place that
picks the implementation from the run's platform value (`Origin.kind`).

A run reports through one interface: progress, the answer and approval cards arrive as `Reporter`
events ("step", "tool", "paused", "answer"); a card's later updates (decided, done, expired) and
notices in the thread are methods. Slack (workers/slack_surface.py) and Discord
(bot/discord/surface.py) implement it; the core never names either outside `for_run`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workers.loop import Reporter
from workers.state import Platform, RunState

if TYPE_CHECKING:
    from atlas.settings import Settings
    from workers.approvals import Approval
    from workers.runs import RunStore


class ChatPlatform(Reporter):
    """A chat platform as a run sees it. One instance per job; nothing kept between jobs."""

    def card_decided(self, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False) -> bool:
        """Edit an approval card to show its decision (who, what, when) and the result if any; no buttons.
        Returns False when the card could not be edited (never raises for the platform's errors)."""
        raise NotImplementedError

    def notice_in_doubt(self, run: RunState, approval: Approval, issue_url: str | None = None) -> None:
        """Say in the run's thread that an approved action may or may not have happened (linking the
        issue's page on the tracker when there is one)."""
        raise NotImplementedError


def for_run(settings: Settings, store: RunStore, platform: Platform) -> ChatPlatform | None:
    """The run's platform, or None when it has none (the CLI) or it is not configured in this process."""
    if platform == "slack" and settings.slack_bot_token:
        from workers.slack_surface import SlackReporter

        return SlackReporter.for_settings(settings, store)
    if platform == "discord" and settings.discord_bot_token:
        from bot.discord.surface import DiscordReporter

        return DiscordReporter.for_settings(settings, store)
    return None
