"""The first message of a new assistant thread, as a value: the greeting, and the prompts suggested under it (the
configured examples, ATLAS_ASSISTANT_PROMPTS). Slack's assistant view renders it (bot/slack/views/greeting.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Greeting:
    """A new thread's greeting; `prompts` are offered as they are written, none when none are configured."""

    prompts: tuple[str, ...] = ()
