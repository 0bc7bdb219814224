"""The answer as messages of its own in the run's Slack thread, posted exactly once.

Where the progress message cannot stream it (bot/slack/stream.py), the answer is one or more messages
in the thread. Their ts and a digest of what they say are saved in the run's `SlackSurface` right
after each post: a re-delivered answer (a retried job, a worker that died after saving) updates the
messages it finds there, posts only the missing ones and deletes any left over, instead of posting
again. Each message is posted once (workers/runs/post_once.py): its intent is saved first and it carries a
marker, so a worker that died between Slack taking it and the save of its ts (or a 5xx Slack sent after taking
it) leaves a message the retry finds in the thread and adopts. If Slack refuses the feedback block, the same
message goes with plain feedback buttons; if it refuses the blocks otherwise, the answer goes as text alone.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import card_marker
from bot.slack.client import error_code, error_details
from bot.slack.progress import channel_of, thread_of
from bot.slack.views.answer import Message, SlackAnswer
from workers.runs.post_once import post_once
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import SlackSurface

log = logging.getLogger("atlas.slack_surface")

TEXT_ONLY_ERRORS = frozenset(
    {"invalid_blocks", "invalid_blocks_format", "msg_too_long", "msg_blocks_too_long", "markdown_text_too_long"}
)
TEXT_ONLY_CHARS = 3500


class AnswerMessages:
    """Posts and updates a run's answer messages. One instance per job (the reporter's)."""

    def __init__(self, client: WebClient, create_client: WebClient, store: RunStore) -> None:
        self.client = client  # retries 5xx and dropped connections: for updates and deletes
        self.create_client = create_client  # retries 429 only: for posts
        self.store = store

    def post(self, run: RunState, answer: SlackAnswer) -> bool:
        """Post the answer once; on a re-delivery update the messages already posted, if it changed.
        True when the thread was sent anything, False when it already showed this answer."""
        messages = answer.messages
        digest = hashlib.sha256(json.dumps([[m.text, m.blocks] for m in messages], sort_keys=True).encode()).hexdigest()
        surface = SlackSurface.of(run)
        posted: list[str] = list(surface.answer_ts)
        if surface.answer_digest == digest and len(posted) >= len(messages):
            return False
        channel = channel_of(run)
        for index, message in enumerate(messages):
            if index < len(posted):
                self.send(answer, message, "update", channel=channel, ts=posted[index])
                continue
            self._post_once(run, answer, index, digest if index == len(messages) - 1 else None)
            posted = list(surface.answer_ts)
        stale = posted[len(messages) :]
        for ts in stale:
            try:
                self.client.chat_delete(channel=channel, ts=ts)
            except SlackApiError as exc:  # already gone (a person or a moderator deleted it): nothing left to do
                if error_code(exc) != "message_not_found":
                    raise
        if stale or surface.answer_digest != digest:  # else the last post's save recorded it all
            surface.answer_ts, surface.answer_digest = posted[: len(messages)], digest
            self.store.save(run)
        return True

    def _post_once(self, run: RunState, answer: SlackAnswer, index: int, digest: str | None) -> None:
        """Message `index`: adopted (and brought up to date) if an earlier try's post is in the thread by its
        marker, else posted after its intent is saved."""
        channel, thread, message = channel_of(run), thread_of(run), answer.messages[index]
        mark = card_marker.note_marker(f"answer:{run.id}:{index}")

        def post() -> tuple[str, str]:
            reply = self.send(
                answer,
                message,
                "post",
                channel=channel,
                thread_ts=thread,
                unfurl_links=False,
                unfurl_media=False,
                metadata=mark,
            )
            return channel, str(reply["ts"])

        post_once(
            _AnswerSlot(self.store, run, index, digest),
            channel,
            find=lambda since: card_marker.find_marked(self.client, channel, mark, since, thread),
            edit=lambda ch, ts: self.send(answer, message, "update", channel=ch, ts=ts),
            post=post,
        )

    def update(self, run: RunState, ts: str, answer: SlackAnswer) -> None:
        """The whole answer, as one message, into the message at `ts` (one Slack no longer streams)."""
        [message] = answer.messages
        self.send(answer, message, "update", channel=channel_of(run), ts=ts)

    def send(self, answer: SlackAnswer, message: Message, how: str, **kwargs: Any) -> Any:
        """chat.postMessage / chat.update; if Slack rejects the feedback block, the same message with
        plain feedback buttons; if it rejects the blocks otherwise, the same text without them."""
        call = self.create_client.chat_postMessage if how == "post" else self.client.chat_update
        kwargs = {**kwargs, "text": message.text, "blocks": message.blocks}
        try:
            return call(**kwargs)
        except SlackApiError as exc:
            if error_code(exc) not in TEXT_ONLY_ERRORS:
                raise
            classic = message.classic if refuses_feedback_block(exc) else None
            if classic is not None:
                log.info("run %s: Slack refused the feedback block; sending plain feedback buttons", answer.run_id)
                try:
                    return call(**{**kwargs, "blocks": classic})
                except SlackApiError as again:
                    if error_code(again) not in TEXT_ONLY_ERRORS:
                        raise
            log.warning(
                "run %s: Slack refused the answer's blocks (%s); sending text only", answer.run_id, error_code(exc)
            )
            kwargs["blocks"] = []
            kwargs["text"] = answer.text[:TEXT_ONLY_CHARS]
            return call(**kwargs)


class _AnswerSlot:
    """Where answer message `index` is saved: its ts in `answer_ts` (with the answer's digest once it is the
    last), the intent in `answer_posting`; each save remembered before anything else can fail.

    The first message's intent is the run's end itself, saved already (one save fewer per answer): a job that did
    not end the run (a re-delivery) looks for it in the thread since the run began, unless a try recorded when it
    set out; the job that ended it knows that nothing posted it yet."""

    def __init__(self, store: RunStore, run: RunState, index: int, digest: str | None) -> None:
        self.store, self.run, self.index, self.digest = store, run, index, digest
        self.surface = SlackSurface.of(run)

    def posted(self) -> tuple[str, str] | None:
        ts = self.surface.answer_ts
        return (channel_of(self.run), ts[self.index]) if self.index < len(ts) else None

    def posting(self) -> float:
        if self.surface.answer_posting or self.index > 0 or self.run.ended_here():
            return self.surface.answer_posting
        return self.run.created_at  # an earlier job ended the run: it may have posted this before recording it

    def intend(self, at: float) -> None:
        self.surface.answer_posting = at  # in this object, for this job's own next try (a 5xx after Slack took it)
        if self.index > 0:  # a later message's intent is not implied by the run's end
            self.store.save(self.run)

    def record(self, channel: str, message: str) -> None:
        self.surface.answer_ts = [*self.surface.answer_ts, message]
        self.surface.answer_posting = 0.0
        if self.digest is not None:  # the last one: every message is this answer's, none is stale
            self.surface.answer_digest = self.digest
        self.store.save(self.run)


def refuses_feedback_block(exc: SlackApiError) -> bool:
    """Slack's details of an `invalid_blocks` name the feedback block or its buttons."""
    return any("context_actions" in detail or "feedback_buttons" in detail for detail in error_details(exc))
