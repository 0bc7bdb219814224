"""The run's Slack thread: live progress while it works, then the answer, posted exactly once.

Progress uses Slack's text streaming (`chat.startStream` / `appendStream` / `stopStream`) with one
task card per tool call; where Slack refuses to stream, one placeholder message updated per step.
Updates are buffered: at most one call per `PROGRESS_MIN_INTERVAL`, plus one at each step boundary.
A job keeps one progress message: when Slack refuses an append, the same message is updated by ts
instead (a rate limit only delays the update). When the person presses stop (`stopped_by_user`),
the run ends at its next step boundary and the thread gets one short note instead of anything more.

Idempotency lives in `run.surface`, saved right after each message is created: a re-delivered
answer (a retried job, a worker that died after saving) updates the messages it finds there
instead of posting again. Nothing else is kept between jobs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.messages.chunk import MarkdownTextChunk, TaskUpdateChunk

from atlas.settings import Settings
from atlas.slack_client import web_client
from bot import wording
from workers import approval_cards, conversations
from workers.approvals import Approval
from workers.errors import StoppedByUser
from workers.platforms import ChatPlatform
from workers.runs import RunStore
from workers.slack_render import (
    answer_messages,
    defuse_broadcasts,
    placeholder_text,
    task_title,
)
from workers.state import RunState, Turn

log = logging.getLogger("atlas.slack_surface")

PROGRESS_MIN_INTERVAL = 1.0  # seconds between progress updates within a step
TASK_STATUS = {"started": "in_progress", "done": "complete", "failed": "error"}
TEXT_ONLY_ERRORS = frozenset({"invalid_blocks", "invalid_blocks_format", "msg_too_long", "msg_blocks_too_long",
                              "markdown_text_too_long"})
RATE_LIMITED = frozenset({"ratelimited", "rate_limited"})  # after the client's own Retry-After retries
TEXT_ONLY_CHARS = 3500


class SlackReporter(ChatPlatform):
    """Posts a Slack-origin run's progress and answer in its thread. One instance per job."""

    def __init__(
        self,
        client: WebClient,
        create_client: WebClient,
        store: RunStore,
        *,
        docs_base_url: str | None = None,
        issues_base_url: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client  # retries 5xx and dropped connections: for updates
        self.create_client = create_client  # retries 429 only: for calls that create messages
        self.store = store
        self.docs_base_url = docs_base_url
        self.issues_base_url = issues_base_url
        self.clock = clock
        self._tasks: dict[str, tuple[str, str]] = {}  # call_id -> (title, status), this job's calls
        self._pending: dict[str, tuple[str, str]] = {}  # not yet sent to Slack
        self._step = 0
        self._last_flush = float("-inf")
        self._progress_broken = False

    @classmethod
    def for_settings(cls, settings: Settings, store: RunStore) -> SlackReporter:
        return cls(
            web_client(settings),
            web_client(settings, repeatable=False),
            store,
            docs_base_url=settings.docs_base_url,
            issues_base_url=settings.issues_base_url,
        )

    # -- events --------------------------------------------------------------------------------

    def event(self, run: RunState, kind: str, **data: Any) -> None:
        if run.origin.kind != "slack" or not run.origin.channel:
            return
        if kind == "step":
            if not run.surface.get("stopped_by_user"):
                self._step = int(data.get("step") or 0)
                if not run.surface.get("progress_open"):
                    self._start_progress(run)
                self._flush(run, force=True)
            if run.surface.get("stopped_by_user"):
                raise StoppedByUser(run.id)  # at a step boundary: nothing half done
        elif kind == "tool":
            if run.surface.get("stopped_by_user"):
                return
            status = TASK_STATUS.get(str(data.get("state")), "in_progress")
            call_id = str(data.get("call_id"))
            entry = (task_title(str(data.get("name", "")), str(data.get("arguments", ""))), status)
            self._tasks[call_id] = entry
            self._pending[call_id] = entry
            self._flush(run, force=False)
        elif kind == "paused":
            self._close_progress(run, wording.PROGRESS_PAUSED)
            if run.surface.get("stopped_by_user"):
                raise StoppedByUser(run.id)  # no cards: the person asked for nothing more
            self.post_approval_cards(run, list(data.get("pending") or []))
        elif kind == "answer":
            closing = wording.PROGRESS_FAILED if run.status == "failed" else wording.PROGRESS_DONE.format(
                steps=len(run.steps), step_word=wording.steps_word(len(run.steps))
            )
            self._close_progress(run, closing)
            if run.surface.get("stopped_by_user"):
                self._post_stop_note(run)
                return
            self.post_answer(run)

    # -- progress ------------------------------------------------------------------------------

    def _start_progress(self, run: RunState) -> None:
        """A streaming message in the thread, or a placeholder when Slack will not stream here."""
        if self._progress_broken:
            return
        origin = run.origin
        try:
            reply = self.create_client.chat_startStream(
                channel=origin.channel,
                thread_ts=_thread(run),
                recipient_team_id=origin.team,
                recipient_user_id=origin.user,
                task_display_mode="timeline",
                chunks=[MarkdownTextChunk(text=wording.PROGRESS_START)],
            )
            mode = "stream"
        except SlackApiError as exc:
            log.info("run %s: streaming unavailable (%s); using a placeholder", run.id, _error_code(exc))
            try:
                reply = self.create_client.chat_postMessage(
                    channel=origin.channel, thread_ts=_thread(run), text=placeholder_text(self._step, [])
                )
            except SlackClientError:
                log.warning("run %s: could not post progress", run.id, exc_info=True)
                self._progress_broken = True
                return
            mode = "placeholder"
        except SlackClientError:
            log.warning("run %s: could not start progress", run.id, exc_info=True)
            self._progress_broken = True
            return
        run.surface.update(progress_mode=mode, progress_ts=reply["ts"], progress_open=True)
        self.store.save(run)

    def _flush(self, run: RunState, *, force: bool) -> None:
        """Send what changed since the last update, unless the last one was too recent."""
        if not run.surface.get("progress_open"):
            return
        mode = run.surface.get("progress_mode")
        if mode == "stream" and not self._pending:
            return
        if not force and self.clock() - self._last_flush < PROGRESS_MIN_INTERVAL:
            return
        try:
            if mode == "stream":
                self._append(run)
            else:
                self._update_in_place(run)
        except SlackApiError as exc:
            code = _error_code(exc)
            if code in RATE_LIMITED:
                log.info("run %s: progress update rate limited; sending it with the next one", run.id)
                return  # what is pending stays pending
            log.warning("run %s: progress update refused (%s); no more progress this job", run.id, code)
            self._progress_broken = True
            run.surface["progress_open"] = False
            self.store.save(run)
            return
        except SlackClientError:
            log.warning("run %s: progress update failed", run.id, exc_info=True)
            return
        self._pending.clear()
        self._last_flush = self.clock()

    def _append(self, run: RunState) -> None:
        """Append the pending task cards; if Slack refuses, go on updating the same message by ts."""
        try:
            self.create_client.chat_appendStream(channel=run.origin.channel, ts=run.surface["progress_ts"], chunks=self._task_chunks())
        except SlackApiError as exc:
            code = _error_code(exc)
            if code == "stopped_by_user":
                self._user_stopped(run)
                return
            if code in RATE_LIMITED:
                raise
            log.info("run %s: Slack refused appending to the stream (%s); updating the same message instead", run.id, code)
            run.surface["progress_mode"] = "placeholder"
            self.store.save(run)
            self._update_in_place(run)

    def _update_in_place(self, run: RunState, closing: str | None = None) -> None:
        """The progress text, edited by ts; if the message is gone, one new plain message replaces it."""
        text = placeholder_text(self._step, list(self._tasks.values()), closing)
        try:
            self.client.chat_update(channel=run.origin.channel, ts=run.surface["progress_ts"], text=text)
        except SlackApiError as exc:
            if _error_code(exc) != "message_not_found":
                raise
            reply = self.create_client.chat_postMessage(channel=run.origin.channel, thread_ts=_thread(run), text=text)
            run.surface["progress_ts"] = reply["ts"]
            self.store.save(run)

    def _user_stopped(self, run: RunState) -> None:
        """The person pressed stop: remembered in the run, so no job posts progress or an answer again."""
        log.info("run %s: the person stopped the stream", run.id)
        self._pending.clear()
        run.surface.update(stopped_by_user=True, progress_open=False)
        self.store.save(run)

    def _post_stop_note(self, run: RunState) -> None:
        """The one short line a stopped run leaves in the thread (once, across re-deliveries)."""
        if run.surface.get("stop_note_ts"):
            return
        reply = self.create_client.chat_postMessage(channel=run.origin.channel, thread_ts=_thread(run), text=wording.PROGRESS_STOPPED)
        run.surface["stop_note_ts"] = reply["ts"]
        self.store.save(run)
        self._clear_status(run)

    def _close_progress(self, run: RunState, closing: str) -> None:
        """End the progress message with a closing line; the answer or the approval card follows it."""
        if not run.surface.get("progress_open"):
            return
        channel, ts = run.origin.channel, run.surface["progress_ts"]
        try:
            if run.surface.get("progress_mode") == "stream":
                chunks: list[Any] = self._task_chunks()
                chunks.append(MarkdownTextChunk(text="\n" + closing))
                try:
                    self.create_client.chat_stopStream(channel=channel, ts=ts, chunks=chunks)
                except SlackApiError as exc:
                    if _error_code(exc) == "stopped_by_user":
                        self._user_stopped(run)
                        return
                    log.info("run %s: Slack refused stopping the stream (%s); updating it instead", run.id, _error_code(exc))
                    self._update_in_place(run, closing)
            else:
                self._update_in_place(run, closing)
        except SlackClientError:
            log.info("run %s: could not close the progress message", run.id, exc_info=True)
        self._pending.clear()
        run.surface["progress_open"] = False
        self.store.save(run)

    def _task_chunks(self) -> list[Any]:
        return [TaskUpdateChunk(id=call_id, title=title, status=status) for call_id, (title, status) in self._pending.items()]

    # -- the answer ----------------------------------------------------------------------------

    def post_answer(self, run: RunState) -> None:
        """Post the answer once; on a re-delivery update the messages already posted, if it changed."""
        messages = answer_messages(run, docs_base_url=self.docs_base_url, issues_base_url=self.issues_base_url)
        digest = hashlib.sha256(json.dumps([[m.text, m.blocks] for m in messages], sort_keys=True).encode()).hexdigest()
        posted: list[str] = list(run.surface.get("answer_ts") or [])
        if run.surface.get("answer_digest") != digest or len(posted) < len(messages):
            channel = run.origin.channel
            for index, message in enumerate(messages):
                if index < len(posted):
                    self._send(run, "update", channel=channel, ts=posted[index], text=message.text, blocks=message.blocks)
                    continue
                reply = self._send(
                    run, "post", channel=channel, thread_ts=_thread(run), text=message.text, blocks=message.blocks,
                    unfurl_links=False, unfurl_media=False,
                )
                posted.append(reply["ts"])
                run.surface["answer_ts"] = posted
                self.store.save(run)  # remembered before anything else can fail
            for stale in posted[len(messages):]:
                self.client.chat_delete(channel=channel, ts=stale)
            run.surface.update(answer_ts=posted[: len(messages)], answer_digest=digest)
            self.store.save(run)
            self._clear_status(run)
        self._record_turn(run)

    def _clear_status(self, run: RunState) -> None:
        """Posting clears the bot's "is looking into it" status; clear it explicitly in case it landed late."""
        try:
            self.client.assistant_threads_setStatus(channel_id=run.origin.channel, thread_ts=_thread(run), status="")
        except SlackClientError:
            pass  # cosmetic: Slack drops the status by itself after two minutes

    def _send(self, run: RunState, how: str, **kwargs: Any) -> Any:
        """chat.postMessage / chat.update; if Slack rejects the blocks, the same text without them."""
        call = self.create_client.chat_postMessage if how == "post" else self.client.chat_update
        try:
            return call(**kwargs)
        except SlackApiError as exc:
            if _error_code(exc) not in TEXT_ONLY_ERRORS:
                raise
            log.warning("run %s: Slack refused the answer's blocks (%s); sending text only", run.id, _error_code(exc))
            kwargs["blocks"] = []
            kwargs["text"] = defuse_broadcasts(run.answer or wording.PROGRESS_FAILED)[:TEXT_ONLY_CHARS]
            return call(**kwargs)

    def _record_turn(self, run: RunState) -> None:
        """A finished answer becomes context for follow-ups in the same thread (once per run)."""
        if run.status not in ("done", "partial") or not run.answer:
            return
        origin = run.origin
        conversations.append(
            self.store.conn, origin.team, origin.channel or "", _thread(run), run.id,
            Turn(question=run.question, answer=run.answer),
        )

    # -- approvals -----------------------------------------------------------------------------

    def post_approval_cards(self, run: RunState, pending: list[dict[str, Any]]) -> None:
        """One card per pending call (approval_cards skips calls whose card is already posted)."""
        approval_cards.post(self.create_client, run, pending)

    def card_decided(self, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False) -> bool:
        return approval_cards.update(self.client, approval, result=result, ok=ok, in_doubt=in_doubt)

    def notice_in_doubt(self, run: RunState, approval: Approval) -> None:
        from tools.tracker import demo_tracker
        from workers import runtime

        settings = runtime.current().settings
        approval_cards.tell_in_doubt(self.create_client, run, approval, demo_tracker(settings.data_dir, settings.issues_base_url))


def _thread(run: RunState) -> str:
    return run.origin.thread_ts or run.origin.message_ts or ""


def _error_code(exc: SlackApiError) -> str:
    response = getattr(exc, "response", None)
    try:
        return str(response.get("error")) if response is not None else "unknown"
    except Exception:
        return "unknown"
