"""A run's progress message in its Slack thread: one task card per tool call while it works.

Slack's text streaming (`chat.startStream` / `appendStream` / `stopStream`) where Slack streams;
elsewhere one placeholder message updated per step. Updates are buffered: at most one call per
`PROGRESS_MIN_INTERVAL`, plus one at each step boundary. A job keeps one progress message: when Slack
refuses an append, the same message is updated by ts instead (a rate limit only delays the update).
When the person presses stop (`stopped_by_user`), that is remembered in the run.

The message opens when there is progress to show: the first tool call, or a step after the first
(a resumed run). A run answered by its first model call shows no progress message, only the answer
(the web process's "is looking into it" status covers the wait). In Slack's assistant view it opens
at the first step, since the answer streams into it (bot/slack/stream.py).

The message's ts, mode and whether it is open live in the run's `SlackSurface`, saved as they change.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.messages.chunk import MarkdownTextChunk

from bot.slack.client import error_code
from bot.slack.views.progress import closing_line, placeholder_text, task_chunks
from workers.messages.progress import TASK_STATUS, Progress, ProgressEnd, Task
from workers.messages.task_titles import task_title
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import ProgressMode, SlackSurface

log = logging.getLogger("atlas.slack_surface")

PROGRESS_MIN_INTERVAL = 1.0  # seconds between progress updates within a step
RATE_LIMITED = frozenset({"ratelimited", "rate_limited"})  # after the client's own Retry-After retries


class ProgressMessage:
    """The progress of one job of a run: its task cards, and the one message that shows them."""

    def __init__(
        self,
        client: WebClient,
        create_client: WebClient,
        store: RunStore,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client  # retries 5xx and dropped connections: for updates
        self.create_client = create_client  # retries 429 only: for calls that create messages
        self.store = store
        self.clock = clock
        self.tasks: dict[str, Task] = {}  # call_id -> its task, this job's calls
        self.pending: dict[str, Task] = {}  # not yet sent to Slack
        self.step = 0
        self._last_flush = float("-inf")
        self._broken = False

    def on_step(self, run: RunState, step: int) -> None:
        """A step begins: open the message if there is progress to show (module docstring), then send what is
        pending."""
        self.step = step
        surface = SlackSurface.of(run)
        if not surface.progress_open and (step > 1 or surface.assistant_thread):
            self.start(run)
        self.flush(run, force=True)

    def on_tool(self, run: RunState, call_id: str, name: str, arguments: str, state: str) -> None:
        """A tool call started or ended: its card, sent now or with the next update (the first one opens the
        message)."""
        entry = Task(call_id, task_title(name, arguments), TASK_STATUS.get(state, "in_progress"))
        self.tasks[call_id] = entry
        self.pending[call_id] = entry
        if not SlackSurface.of(run).progress_open:
            self.start(run)
        self.flush(run, force=False)

    def start(self, run: RunState) -> None:
        """A streaming message in the thread, or a placeholder when Slack will not stream here."""
        if self._broken:
            return
        origin = run.origin
        try:
            reply = self.create_client.chat_startStream(
                channel=channel_of(run),
                thread_ts=thread_of(run),
                recipient_team_id=origin.team,
                recipient_user_id=origin.user,
                task_display_mode="timeline",
                chunks=[MarkdownTextChunk(text=placeholder_text(Progress(0)))],
            )
            mode: ProgressMode = "stream"
        except SlackApiError as exc:
            log.info("run %s: streaming unavailable (%s); using a placeholder", run.id, error_code(exc))
            try:
                reply = self.create_client.chat_postMessage(
                    channel=channel_of(run), thread_ts=thread_of(run), text=placeholder_text(Progress(self.step))
                )
            except SlackClientError:
                log.warning("run %s: could not post progress", run.id, exc_info=True)
                self._broken = True
                return
            mode = "placeholder"
        except SlackClientError:
            log.warning("run %s: could not start progress", run.id, exc_info=True)
            self._broken = True
            return
        surface = SlackSurface.of(run)
        surface.progress_mode, surface.progress_ts, surface.progress_open = mode, reply["ts"], True
        self.store.save(run)

    def flush(self, run: RunState, *, force: bool) -> None:
        """Send what changed since the last update, unless the last one was too recent."""
        if not SlackSurface.of(run).progress_open:
            return
        mode = SlackSurface.of(run).progress_mode
        if mode == "stream" and not self.pending:
            return
        if not force and self.clock() - self._last_flush < PROGRESS_MIN_INTERVAL:
            return
        try:
            if mode == "stream":
                self._append(run)
            else:
                self.update_in_place(run)
        except SlackApiError as exc:
            code = error_code(exc)
            if code in RATE_LIMITED:
                log.info("run %s: progress update rate limited; sending it with the next one", run.id)
                return  # what is pending stays pending
            log.warning("run %s: progress update refused (%s); no more progress this job", run.id, code)
            self._broken = True
            SlackSurface.of(run).progress_open = False
            self.store.save(run)
            return
        except SlackClientError:
            log.warning("run %s: progress update failed", run.id, exc_info=True)
            return
        self.pending.clear()
        self._last_flush = self.clock()

    def _append(self, run: RunState) -> None:
        """Append the pending task cards; if Slack refuses, go on updating the same message by ts."""
        try:
            self.create_client.chat_appendStream(
                channel=channel_of(run), ts=SlackSurface.of(run).progress_ts or "", chunks=self.task_chunks()
            )
        except SlackApiError as exc:
            code = error_code(exc)
            if code == "stopped_by_user":
                self.user_stopped(run)
                return
            if code in RATE_LIMITED:
                raise
            log.info(
                "run %s: Slack refused appending to the stream (%s); updating the same message instead", run.id, code
            )
            SlackSurface.of(run).progress_mode = "placeholder"
            self.store.save(run)
            self.update_in_place(run)

    def update_in_place(self, run: RunState, end: ProgressEnd | None = None) -> None:
        """The progress text, edited by ts; if the message is gone, one new plain message replaces it."""
        text = placeholder_text(Progress(self.step, tuple(self.tasks.values()), end))
        try:
            self.client.chat_update(channel=channel_of(run), ts=SlackSurface.of(run).progress_ts or "", text=text)
        except SlackApiError as exc:
            if error_code(exc) != "message_not_found":
                raise
            reply = self.create_client.chat_postMessage(channel=channel_of(run), thread_ts=thread_of(run), text=text)
            SlackSurface.of(run).progress_ts = reply["ts"]
            self.store.save(run)

    def user_stopped(self, run: RunState) -> None:
        """The person pressed stop: remembered in the run, so no job posts progress or an answer again."""
        log.info("run %s: the person stopped the stream", run.id)
        self.pending.clear()
        surface = SlackSurface.of(run)
        surface.stopped_by_user, surface.progress_open = True, False
        self.store.save(run)

    def close(self, run: RunState, end: ProgressEnd) -> None:
        """End the progress message with a closing line; the answer or the approval card follows it."""
        if not SlackSurface.of(run).progress_open:
            return
        channel, ts = channel_of(run), SlackSurface.of(run).progress_ts or ""
        try:
            if SlackSurface.of(run).progress_mode == "stream":
                chunks: list[Any] = self.task_chunks()
                chunks.append(MarkdownTextChunk(text="\n" + closing_line(end)))
                try:
                    self.create_client.chat_stopStream(channel=channel, ts=ts, chunks=chunks)
                except SlackApiError as exc:
                    if error_code(exc) == "stopped_by_user":
                        self.user_stopped(run)
                        return
                    log.info(
                        "run %s: Slack refused stopping the stream (%s); updating it instead", run.id, error_code(exc)
                    )
                    self.update_in_place(run, end)
            else:
                self.update_in_place(run, end)
        except SlackClientError:
            log.info("run %s: could not close the progress message", run.id, exc_info=True)
        self.pending.clear()
        SlackSurface.of(run).progress_open = False
        self.store.save(run)

    def task_chunks(self) -> list[Any]:
        """The pending task cards as stream chunks."""
        return list(task_chunks(list(self.pending.values())))


def channel_of(run: RunState) -> str:
    """The channel a Slack run answers in (every Slack run has one; the surfaces skip runs without)."""
    return run.origin.channel or ""


def thread_of(run: RunState) -> str:
    """The thread a Slack run answers in."""
    return run.origin.thread_ts or run.origin.message_ts or ""
