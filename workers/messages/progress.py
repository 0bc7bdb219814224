"""A run's progress message as a value: the step it is on, its tool calls with their states, and how it ended.

The reporter keeps the tasks as the run's `ToolCalled` events arrive (workers/agent/events.py) and renders
`Progress` on each change (bot/slack/views/progress.py); `end_of` says how a finished run's message closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from workers.runs.state import RunState

TaskStatus = Literal["in_progress", "complete", "error"]
TASK_STATUS: dict[str, TaskStatus] = {
    "started": "in_progress",
    "done": "complete",
    "failed": "error",
}  # from a tool state
EndKind = Literal["done", "failed", "paused", "stopped", "undelivered"]


@dataclass(frozen=True)
class Task:
    """One tool call as the progress message lists it: its title in words (workers/messages/task_titles.py) and
    state."""

    call_id: str
    title: str
    status: TaskStatus


@dataclass(frozen=True)
class ProgressEnd:
    """The progress message's last line: done after `steps` steps, failed, paused for approval, stopped by the
    person who asked, or finished with an answer the platform would not take (`undelivered`)."""

    kind: EndKind
    steps: int = 0


@dataclass(frozen=True)
class Progress:
    """The whole progress message as it stands; `step` 0: not started yet."""

    step: int
    tasks: tuple[Task, ...] = ()
    end: ProgressEnd | None = None


def end_of(run: RunState) -> ProgressEnd:
    """How a finished run's progress message closes once its answer (or failure note) is in the thread."""
    return ProgressEnd("failed") if run.status == "failed" else ProgressEnd("done", len(run.steps))
