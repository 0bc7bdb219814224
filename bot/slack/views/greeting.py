"""A new assistant thread's greeting on Slack (workers/messages/greeting.py): the message Bolt's `say` posts, and
the suggested prompts its `set_suggested_prompts` sets (none, and no word of them, when none are configured)."""

from __future__ import annotations

from typing import Any

from bot.slack import wording
from workers.messages.greeting import Greeting


def greeting_text(greeting: Greeting) -> str:
    """The greeting; it points at the prompts only when there are some."""
    return wording.ASSISTANT_GREETING if greeting.prompts else wording.ASSISTANT_GREETING_NO_PROMPTS


def suggested_prompts(greeting: Greeting) -> dict[str, Any] | None:
    """`set_suggested_prompts`'s arguments: each prompt's title is its message, as written; None without prompts."""
    if not greeting.prompts:
        return None
    prompts = [{"title": prompt, "message": prompt} for prompt in greeting.prompts]
    return {"prompts": prompts, "title": wording.ASSISTANT_PROMPTS_TITLE}
