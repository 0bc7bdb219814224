"""A run's progress message on Discord: the step, one line per tool call with its state, a closing line."""

from __future__ import annotations

from atlas.text import clip
from bot.discord import wording
from bot.discord.rest import CONTENT_LIMIT
from bot.discord.views.markup import escape

PROGRESS_TASKS = 20


def progress_text(step: int, tasks: list[tuple[str, str]], closing: str | None = None) -> str:
    """The progress message: the step, one line per tool call with its state, a closing line."""
    lines = [wording.PROGRESS_STEP.format(step=step) if step else wording.PROGRESS_START]
    for title, status in tasks[-PROGRESS_TASKS:]:
        lines.append(f"{wording.TASK_MARK.get(status, '')} {escape(title)}")
    if closing:
        lines.append(closing)
    return clip("\n".join(lines), CONTENT_LIMIT)
