"""A run's status line and thread title in an assistant thread (workers/messages/status.py), as the arguments of
`assistant.threads.setStatus` and `assistant.threads.setTitle`: Slack shows them beside the thread."""

from __future__ import annotations

from typing import Any, assert_never

from bot.slack import wording
from workers.messages.status import Idle, Status, Thinking, ThreadTitle, UsingTool, Waiting

TITLE_CHARS = 80


def status_args(status: Status) -> dict[str, Any]:
    """`status` (and, while waiting, the loading messages Slack rotates through); an empty status clears it."""
    match status:
        case Waiting():
            return {"status": wording.WORKING_STATUS, "loading_messages": list(wording.LOADING_MESSAGES)}
        case Thinking():
            return {"status": wording.ASSISTANT_STATUS_THINKING}
        case UsingTool(name=name):
            return {"status": wording.ASSISTANT_STATUS.get(name, wording.ASSISTANT_STATUS_OTHER)}
        case Idle():
            return {"status": ""}
        case _:
            assert_never(status)


def thread_title(title: ThreadTitle) -> str:
    """The question on one line, clipped."""
    flat = " ".join(title.question.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1].rstrip() + "…"
