"""A finished run's answer into its Slack thread: streamed into the progress message where it can go
(bot/slack/stream.py), else as messages of its own (bot/slack/answer.py); the short note of a run the person
stopped; the hand-off of a help run that was not confident. Then the answer becomes the thread's turn.

The reporter (bot/slack/surface.py) composes the answer's value once (workers/messages/answer.py), renders it
(bot/slack/views/answer.py `slack_answer`) and hands it here; the modules below post it. Nothing here calls back
up (tests/house/test_posting_walk.py).
"""

from __future__ import annotations

import time
from typing import Literal, assert_never

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.answer import AnswerMessages
from bot.slack.client import error_code
from bot.slack.progress import ProgressMessage, channel_of, thread_of
from bot.slack.stream import AnswerStream, can_stream, streamed
from bot.slack.views.answer import SlackAnswer
from workers.runs import conversations
from workers.runs.state import RunState, Turn
from workers.runs.store import RunStore
from workers.runs.surfaces import SlackSurface

# The web process shows "is looking into it" on a run still unanswered 1 s (bot/slack/mentions.py
# STATUS_DELAY_SECONDS) after it took it. An answer posted sooner than this after the run was taken
# was on record before the web looked, so there is no status to clear; the other half second allows
# for the web's and the worker's clocks to differ.
STATUS_UNSEEN_SECONDS = 0.5
Sent = Literal["sent", "stopped_by_user"]


class ThreadAnswer:
    """Posts one job's answer, stop note or hand-off in the run's thread, once across re-deliveries."""

    def __init__(self, client: WebClient, create_client: WebClient, store: RunStore, progress: ProgressMessage) -> None:
        self.client = client  # retries 5xx and dropped connections: for updates
        self.create_client = create_client  # retries 429 only: for calls that create messages
        self.store = store
        self.progress = progress  # the job's progress message, which a streamed answer goes into
        self.messages = AnswerMessages(client, create_client, store)
        self.stream = AnswerStream(create_client, store)

    def send(self, run: RunState, answer: SlackAnswer) -> Sent:
        """The answer into the streaming progress message where it can go, else as messages of its own.
        "stopped_by_user": the person stopped the stream; the reporter leaves its stop note."""
        sent = self.streamed_in(run, answer)
        if sent is None:
            self.post(run, answer)
            return "sent"
        return sent

    def streamed_in(self, run: RunState, answer: SlackAnswer) -> Sent | None:
        """Where the progress message streams, the answer goes into it. None when it must be posted instead."""
        if streamed(run):
            self.record_turn(run)  # a re-delivery: the answer is there already
            return "sent"
        if not can_stream(run, answer):
            return None
        outcome = self.stream.deliver(run, answer, self.progress.task_chunks())
        self.progress.pending.clear()
        match outcome:
            case "unstreamable":  # Slack no longer streams it: the same message, finished by ts
                try:
                    self.messages.update(run, str(SlackSurface.of(run).progress_ts), answer)
                except SlackApiError as gone:
                    if error_code(gone) != "message_not_found":
                        raise
                    SlackSurface.of(run).progress_open = False  # someone deleted it: post the answer on its own
                    self.store.save(run)
                    return None
                self.stream.finished(run)
            case "stopped_by_user":
                self.progress.user_stopped(run)
                return "stopped_by_user"
            case "streamed":
                pass
            case _:
                assert_never(outcome)
        self.clear_status(run)
        self.record_turn(run)
        return "sent"

    def post(self, run: RunState, answer: SlackAnswer) -> None:
        """Post the answer once; on a re-delivery update the messages already posted, if it changed."""
        if self.messages.post(run, answer):
            self.clear_status(run)
        self.record_turn(run)

    def stop_note(self, run: RunState, text: str) -> None:
        """The one short line a stopped run leaves in the thread (once, across re-deliveries), as the reporter
        rendered it."""
        if SlackSurface.of(run).stop_note_ts:
            return
        reply = self.create_client.chat_postMessage(channel=channel_of(run), thread_ts=thread_of(run), text=text)
        SlackSurface.of(run).stop_note_ts = reply["ts"]
        self.store.save(run)
        self.clear_status(run)

    def post_hand_off(self, run: RunState, text: str) -> None:
        """The hand-off (rendered by the reporter) as the run's one message: a retried job finds it in `answer_ts`."""
        reply = self.create_client.chat_postMessage(
            channel=channel_of(run), thread_ts=thread_of(run), text=text, unfurl_links=False, unfurl_media=False
        )
        SlackSurface.of(run).answer_ts = [reply["ts"]]
        self.store.save(run)

    def clear_status(self, run: RunState) -> None:
        """Posting clears the bot's "is looking into it" status; clear it explicitly in case it landed late,
        unless the answer is on record before the web process could have shown it (a Web API call fewer)."""
        if time.time() - run.created_at < STATUS_UNSEEN_SECONDS:
            return
        try:
            self.client.assistant_threads_setStatus(channel_id=channel_of(run), thread_ts=thread_of(run), status="")
        except SlackClientError:
            pass  # cosmetic: Slack drops the status by itself after two minutes

    def record_turn(self, run: RunState) -> None:
        """A finished answer becomes context for follow-ups in the same thread (once per run)."""
        if run.status not in ("done", "partial") or not run.answer:
            return
        origin = run.origin
        conversations.append(
            self.store.conn,
            origin.team,
            origin.channel or "",
            thread_of(run),
            run.id,
            Turn(question=run.question, answer=run.answer, asker=run.origin.user),
        )
