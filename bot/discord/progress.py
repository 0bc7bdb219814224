"""A run's live progress message on Discord: the step and its tool calls, edited at most once a second.

A `/atlas ask` run edits the deferred response (`@original`) as its progress; others post a bot message and
edit it. After a pause the progress is a new bot message (the deferred response already says "paused").
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.discord.post import Poster
from bot.discord.rest import DiscordError
from bot.discord.views.progress import progress_text
from workers.messages.progress import Progress, ProgressEnd, Task
from workers.runs.state import RunState
from workers.runs.surfaces import DiscordSurface

log = logging.getLogger("atlas.discord.surface")

PROGRESS_MIN_INTERVAL = 1.0


class ProgressMessage:
    """One job's view of a run's progress (its step and tool calls, the value rendered) and when it last showed it."""

    def __init__(self, poster: Poster, clock: Callable[[], float]) -> None:
        self.poster, self.clock = poster, clock
        self.tasks: dict[str, Task] = {}
        self.step = 0
        self._last_flush = float("-inf")
        self.dirty = False

    def value(self, end: ProgressEnd | None = None) -> Progress:
        return Progress(self.step, tuple(self.tasks.values()), end)

    def stepped(self, run: RunState, step: int) -> None:
        """A step began: shown at once."""
        self.step = step
        self.show(run, force=True)

    def tool(self, run: RunState, task: Task) -> None:
        """A tool call started or ended: shown if a second has passed since the last edit."""
        self.tasks[task.call_id] = task
        self.dirty = True
        self.show(run, force=False)

    def show(self, run: RunState, *, force: bool) -> None:
        """Show the progress now if forced, else if something changed and a second has passed."""
        if not force and (not self.dirty or self.clock() - self._last_flush < PROGRESS_MIN_INTERVAL):
            return
        try:
            self._edit(run, progress_text(self.value()))
        except DiscordError as exc:
            log.warning("run %s: progress update failed (%s)", run.id, exc.status)
        self.dirty = False
        self._last_flush = self.clock()

    def close(self, run: RunState, end: ProgressEnd) -> None:
        """The progress message's last state, with its closing line; later progress is a new message."""
        surface = DiscordSurface.of(run)
        if not surface.progress_open:
            return
        try:
            self._edit(run, progress_text(self.value(end)))
        except DiscordError as exc:
            log.info("run %s: could not close the progress message (%s)", run.id, exc.status)
        surface.progress_open = False
        if surface.interaction is not None:
            surface.progress_done = True  # after a pause, progress is a new bot message
        self.poster.store.save(run)

    def _edit(self, run: RunState, text: str) -> None:
        surface, poster = DiscordSurface.of(run), self.poster
        if not surface.progress_done and poster.webhook(
            run, lambda hook: poster.rest.edit_original(hook.app, hook.token, {"content": text})
        ):
            surface.progress_open = True
            return
        if surface.progress_id and surface.progress_open:
            poster.rest.edit_message(poster.channel(run), surface.progress_id, {"content": text})
            return
        surface.progress_id, surface.progress_open = poster.create_in_channel(run, {"content": text}), True
        poster.store.save(run)
