"""The answer streamed into the message that carried the progress, as Slack's starter agents do: the
task cards, then the answer's Markdown, then the stream stopped with the sources, the footer and the
feedback buttons attached. One message per answer. For runs asked in Slack's assistant view; mentions
and DMs keep the answer as a message of its own, after the progress.

What has been streamed is kept in the run (`SlackSurface.answer_streamed`: characters of the answer appended,
saved after each append), so a retried job (the worker died, Slack failed for a while) continues the
same message from there, or, if Slack no longer streams it, finishes that same message by ts. It
never starts a second one. Where there is no open stream (Slack would not stream here, the answer is
too long for one message, the run failed), the answer is posted as before (bot/slack/answer.py).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.messages.chunk import MarkdownTextChunk

from bot.slack.client import error_code
from bot.slack.delivery import transient
from bot.slack.views.answer import SlackAnswer
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import SlackSurface

log = logging.getLogger("atlas.slack_stream")

PIECE_CHARS = 1500  # an append at a time: the answer appears progressively, in few calls
SEPARATOR = "\n\n"  # between the task cards and the answer
NOT_STREAMING = frozenset({"message_not_in_streaming_state", "message_not_found"})

Streamed = Literal["streamed", "unstreamable", "stopped_by_user"]


def streamed(run: RunState) -> bool:
    """The answer is already in the progress message (a re-delivery has nothing to post)."""
    surface = SlackSurface.of(run)
    return surface.answer_mode == "stream" and bool(surface.answer_ts)


def can_stream(run: RunState, answer: SlackAnswer) -> bool:
    """Asked in Slack's assistant view, with a progress stream open (in this job or an earlier one),
    and an answer that fits one message. Mentions and DMs keep their answer as a message of its own."""
    surface = SlackSurface.of(run)
    return (
        surface.assistant_thread
        and surface.progress_mode == "stream"
        and surface.progress_open
        and not surface.stopped_by_user
        and answer.streamed is not None
    )


def pieces(text: str, start: int, size: int = PIECE_CHARS) -> list[str]:
    """`text[start:]` in pieces of at most `size` characters, cut after a line break where there is one."""
    out: list[str] = []
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind("\n", start, end)
            end = cut + 1 if cut > start else end
        out.append(text[start:end])
        start = end
    return out


class AnswerStream:
    """Streams one run's answer into its progress message and stops the stream with the answer's tail."""

    def __init__(self, create_client: WebClient, store: RunStore) -> None:
        self.create_client = create_client  # retries 429 only: an append must not be sent twice
        self.store = store

    def deliver(self, run: RunState, answer: SlackAnswer, task_chunks: list[Any]) -> Streamed:
        """Append what is left of the answer, then stop the stream with the tail. Transient failures
        (429, 5xx, no connection) raise, so the delivery is tried again and continues from the run.
        "unstreamable": Slack no longer streams that message; the caller finishes it by ts, then calls `finished`."""
        text = answer.streamed or ""
        surface = SlackSurface.of(run)
        channel, ts = run.origin.channel or "", str(surface.progress_ts)
        cards = list(task_chunks)  # this job's last task updates go out with its first call
        try:
            for piece in pieces(text, surface.answer_streamed):
                prefix = SEPARATOR if surface.answer_streamed == 0 else ""
                self.create_client.chat_appendStream(
                    channel=channel, ts=ts, chunks=[*cards, MarkdownTextChunk(text=prefix + piece)]
                )
                cards = []
                surface.answer_streamed += len(piece)
                self.store.save(run)  # a retried job continues after this piece
            self.create_client.chat_stopStream(channel=channel, ts=ts, chunks=cards or None, blocks=answer.tail)
        except SlackApiError as exc:
            code = error_code(exc)
            if code == "stopped_by_user":
                return "stopped_by_user"
            if transient(exc):
                raise
            log.info("run %s: Slack stopped streaming the answer (%s); finishing the same message", run.id, code)
            if code not in NOT_STREAMING:
                self._stop_bare(run, channel, ts)  # e.g. the tail's blocks were refused: end the stream first
            return "unstreamable"
        self.finished(run)
        return "streamed"

    def finished(self, run: RunState) -> None:
        """The progress message holds the answer now: a re-delivery finds it there and posts nothing."""
        surface = SlackSurface.of(run)
        surface.answer_ts, surface.answer_mode, surface.progress_open = [str(surface.progress_ts)], "stream", False
        self.store.save(run)

    def _stop_bare(self, run: RunState, channel: str, ts: str) -> None:
        try:
            self.create_client.chat_stopStream(channel=channel, ts=ts)
        except SlackApiError as exc:
            log.info("run %s: could not end the stream (%s)", run.id, error_code(exc))
