"""The progress message in Slack (from workers/messages/progress.py): the placeholder's text, the task cards a stream
shows, and the closing line."""

from __future__ import annotations

from slack_sdk.models.messages.chunk import TaskUpdateChunk

from bot.slack import wording
from bot.slack.views.markup import escape
from workers.messages import wording as said
from workers.messages.progress import Progress, ProgressEnd, Task

PLACEHOLDER_TASKS = 25


def placeholder_text(progress: Progress) -> str:
    """The fallback progress message: the step, one line per tool call with its state, a closing line."""
    lines = [wording.PROGRESS_STEP.format(step=progress.step) if progress.step else wording.PROGRESS_START]
    for task in progress.tasks[-PLACEHOLDER_TASKS:]:
        lines.append(f"{wording.TASK_MARK.get(task.status, '')} {escape(task.title)}")
    if progress.end is not None:
        lines.append(closing_line(progress.end))
    return "\n".join(lines)


def closing_line(end: ProgressEnd) -> str:
    """The progress message's last line."""
    match end.kind:
        case "done":
            return wording.PROGRESS_DONE.format(steps=end.steps, step_word=said.steps_word(end.steps))
        case "failed":
            return wording.PROGRESS_FAILED
        case "paused":
            return wording.PROGRESS_PAUSED
        case "stopped":
            return wording.PROGRESS_STOPPED
        case "undelivered":
            return wording.PROGRESS_ANSWER_UNDELIVERED


def task_chunks(tasks: tuple[Task, ...] | list[Task]) -> list[TaskUpdateChunk]:
    """Tool calls as a stream's task cards."""
    return [TaskUpdateChunk(id=t.call_id, title=t.title, status=t.status) for t in tasks]
