"""A run's progress message on Discord, from its value (workers/messages/progress.py): the step, one line per tool
call with its state, and the closing line once the run paused or ended."""

from __future__ import annotations

from typing import assert_never

from atlas.text import clip
from bot.discord import wording
from bot.discord.views.limits import CONTENT_LIMIT
from bot.discord.views.markup import escape
from workers.messages.progress import Progress, ProgressEnd

PROGRESS_TASKS = 20


def progress_text(progress: Progress) -> str:
    """The progress message's content: the step, its last tool calls, and how it closed."""
    lines = [wording.PROGRESS_STEP.format(step=progress.step) if progress.step else wording.PROGRESS_START]
    for task in progress.tasks[-PROGRESS_TASKS:]:
        lines.append(f"{wording.TASK_MARK.get(task.status, '')} {escape(task.title)}")
    if progress.end is not None:
        lines.append(closing(progress.end))
    return clip("\n".join(lines), CONTENT_LIMIT)


def closing(end: ProgressEnd) -> str:
    """The last line: done after so many steps, failed, or paused for a maintainer's approval."""
    match end.kind:
        case "done":
            return wording.PROGRESS_DONE.format(steps=end.steps, step_word=wording.steps_word(end.steps))
        case "paused":
            return wording.PROGRESS_PAUSED
        case "failed" | "stopped" | "undelivered":  # Discord has no Stop button nor an answer's outage budget
            return wording.PROGRESS_FAILED
        case _:
            assert_never(end.kind)
