"""What Atlas is doing while a run works, as a value: the short status line a platform may show beside the thread
(Slack's assistant threads do, bot/slack/views/status.py), and the title a run's thread gets from its question.

Both are cosmetic: the answer never depends on them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Waiting:
    """Queued (every worker busy) or its first model call not back yet: Atlas is on it."""


@dataclass(frozen=True)
class Thinking:
    """A step started: the model is deciding what to do next."""


@dataclass(frozen=True)
class UsingTool:
    """A tool call started (`name`: the tool's, as the model called it)."""

    name: str


@dataclass(frozen=True)
class Idle:
    """Nothing to show: the run answered, paused or stopped, so the status is cleared."""


Status = Waiting | Thinking | UsingTool | Idle


@dataclass(frozen=True)
class ThreadTitle:
    """The title of the thread a run answers in, taken from the question that started it."""

    question: str
