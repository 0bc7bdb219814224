"""The name of the Discord thread a mention's run answers in (workers/messages/status.py `ThreadTitle`)."""

from __future__ import annotations

from atlas.text import clip
from bot.discord import wording
from workers.messages.status import ThreadTitle

NAME_CHARS = 100  # Discord: a thread's name holds 1 to 100 characters


def thread_name(title: ThreadTitle) -> str:
    """The question after Atlas's name, on one line and clipped to what Discord holds."""
    return clip_name(wording.THREAD_NAME.format(question=title.question))


def clip_name(text: str) -> str:
    """Thread names hold 1 to 100 characters, on one line."""
    flat = " ".join(text.split())
    return clip(flat, NAME_CHARS) or "Atlas"
