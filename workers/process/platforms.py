"""Which chat platform a run reports on: the one place that picks the implementation of the port
(workers/chat.py) from the run's platform value (`Origin.kind`).

This is wiring, above both the core and the front ends: the worker's composition root
(workers/process/runtime.py) and the job entry points call it; the core gets the result handed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import redis

from bot.discord.surface import DiscordReporter
from bot.slack.assistant_reporter import AssistantThreadReporter, attach_context
from bot.slack.surface import SlackReporter
from workers.agent.ports import Reporter
from workers.chat import ChatPlatform
from workers.runs.state import RunState

if TYPE_CHECKING:
    from atlas.settings import Settings
    from bot.slack.client import SlackClients
    from tools.tracker import Tracker
    from workers.runs.state import Platform
    from workers.runs.store import RunStore


def for_run(
    settings: Settings,
    store: RunStore,
    platform: Platform,
    tracker: Tracker | None = None,
    slack: SlackClients | None = None,
) -> ChatPlatform | None:
    """The run's platform, or None when it has none (the CLI) or it is not configured in this process.
    `tracker` is the one approval cards describe issues from (the worker's; by default the settings' own);
    `slack` the process's Slack clients (by default new ones)."""
    if platform == "slack" and settings.slack_bot_token:
        return SlackReporter.for_settings(settings, store, tracker, slack)
    if platform == "discord" and settings.discord_bot_token:
        return DiscordReporter.for_settings(settings, store, tracker)
    return None


def companions(settings: Settings, run: RunState, slack: SlackClients | None = None) -> tuple[Reporter, ...]:
    """What the run's platform shows beside its thread: Slack's assistant view titles the thread and keeps its
    status current (`slack`: the process's clients, by default new ones)."""
    if run.origin.kind == "slack":
        return (AssistantThreadReporter.for_settings(settings, slack.client if slack else None),)
    return ()


def before_steps(conn: redis.Redis, run: RunState) -> None:
    """What the run's platform adds to its context before a step: asked in Slack's assistant view, the channel
    the person is viewing."""
    if run.origin.kind == "slack":
        attach_context(conn, run)
