"""The run's Slack thread: live progress while it works (bot/slack/progress.py), then the answer,
posted exactly once (streamed into the progress message, bot/slack/stream.py, or as messages of its
own, bot/slack/answer.py), and the approval cards (bot/slack/cards.py). When the person presses stop
(`stopped_by_user`), the run ends at its next step boundary and the thread gets one short note
instead of anything more.

Idempotency lives in the run's `SlackSurface`, saved right after each message is created: a re-delivered
answer (a retried job, a worker that died after saving) updates the messages it finds there
instead of posting again. Nothing else is kept between jobs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import assert_never

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from atlas.settings import Settings
from bot.slack import card_marker, triage_card, wording
from bot.slack import cards as approval_cards
from bot.slack.answer import AnswerMessages
from bot.slack.client import SlackClients, error_code
from bot.slack.delivery import Delivered, Patience, deliver
from bot.slack.progress import PROGRESS_MIN_INTERVAL, ProgressMessage, channel_of, thread_of
from bot.slack.render import defuse, escape
from bot.slack.stream import AnswerStream, can_stream, streamed
from tools.tracker import Tracker
from tools.trackers import tracker_for
from workers import wording as run_words
from workers.agent.events import Finished, InDoubt, Paused, RunEvent, StepStarted, ToolCalled
from workers.approvals.records import Approval
from workers.chat import ChatPlatform, ThreadNote
from workers.errors import StoppedByUser
from workers.runs import conversations
from workers.runs.post_once import KeyedSlot, post_once
from workers.runs.redelivery import Redelivery
from workers.runs.state import Origin, PendingCall, RunState, Turn
from workers.runs.store import RunStore
from workers.runs.surfaces import SlackSurface, Undeliverable
from workers.runs.triage_record import is_triage

__all__ = ["PROGRESS_MIN_INTERVAL", "SlackReporter"]

log = logging.getLogger("atlas.slack_surface")

GONE_ERRORS = frozenset({"not_in_channel", "channel_not_found", "is_archived"})  # Atlas may no longer post there
# The web process shows "is looking into it" on a run still unanswered 1 s (bot/slack/mentions.py
# STATUS_DELAY_SECONDS) after it took it. An answer posted sooner than this after the run was taken
# was on record before the web looked, so there is no status to clear; the other half second allows
# for the web's and the worker's clocks to differ.
STATUS_UNSEEN_SECONDS = 0.5


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
        patience: Patience = Patience(budget_seconds=900.0, cap_seconds=30.0),
        tracker: Tracker | None = None,
        handoff: str = "",
        later: Redelivery | None = None,
    ) -> None:
        self.client = client  # retries 5xx and dropped connections: for updates
        self.create_client = create_client  # retries 429 only: for calls that create messages
        self.store = store
        self.progress = ProgressMessage(client, create_client, store, clock=clock)
        self.answer = AnswerMessages(
            client, create_client, store, docs_base_url=docs_base_url, issues_base_url=issues_base_url
        )
        self.answer_stream = AnswerStream(
            create_client,
            store,
            docs_base_url=docs_base_url,
            issues_base_url=issues_base_url,
            finish_by_update=self.answer.update,
        )
        self.patience = patience  # how long an answer or card is retried through a Slack outage
        self.tracker = tracker  # what approval cards describe issues from (title, duplicate)
        self.handoff = handoff  # ATLAS_HANDOFF's Slack mentions: whom a help run that is not confident asks
        self.later = later  # schedules a re-delivery instead of waiting out an outage in the worker's slot

    @property
    def clock(self) -> Callable[[], float]:
        """The progress message's clock (tests set it)."""
        return self.progress.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.progress.clock = clock

    def _deliver(self, run: RunState, what: Undeliverable, post: Callable[[], None]) -> Delivered:
        """Post through a Slack outage (later, by a scheduled re-delivery, when a scheduler runs); if it
        outlasts the budget, the thread and the run record say so."""
        note = lambda text: self.create_client.chat_postMessage(  # noqa: E731
            channel=channel_of(run), thread_ts=thread_of(run) or None, text=text
        )
        return deliver(run, what, post, self.patience, save=self.store.save, note=note, later=self.later)

    @classmethod
    def for_settings(
        cls, settings: Settings, store: RunStore, tracker: Tracker | None = None, clients: SlackClients | None = None
    ) -> SlackReporter:
        """`tracker`: the worker's; by default the one the settings name (the demo SQLite one or GitHub).
        `clients`: the process's (workers/process/runtime.py builds them once); by default new ones."""
        clients = clients or SlackClients.for_settings(settings)
        return cls(
            clients.client,
            clients.create_client,
            store,
            docs_base_url=settings.docs_base_url,
            issues_base_url=settings.issues_base_url,
            patience=Patience(settings.slack_outage_seconds, settings.slack_retry_cap_seconds),
            tracker=tracker or tracker_for(settings, store.conn),
            handoff=settings.help.slack_handoff(),
            later=Redelivery(store.conn, settings.queue_name),
        )

    # -- events --------------------------------------------------------------------------------

    def event(self, run: RunState, event: RunEvent) -> None:
        if run.origin.kind != "slack" or not run.origin.channel:
            return
        surface = SlackSurface.of(run)
        match event:
            case StepStarted(step=step):
                if not surface.stopped_by_user:
                    self.progress.on_step(run, step)
                if surface.stopped_by_user:
                    raise StoppedByUser(run.id)  # at a step boundary: nothing half done
            case ToolCalled(call_id=call_id, name=name, arguments=arguments, state=state):
                if surface.stopped_by_user:
                    return
                self.progress.on_tool(run, call_id, name, arguments, state)
            case Paused(pending=pending):
                # "Paused" is true before the cards are posted; closing first also learns of a stop press.
                self.progress.close(run, wording.PROGRESS_PAUSED)
                if surface.stopped_by_user:
                    raise StoppedByUser(run.id)  # no cards: the person asked for nothing more
                self._deliver(run, "cards", lambda: self.post_approval_cards(run, pending))
            case Finished():
                if surface.stopped_by_user:
                    self.progress.close(run, _closing(run))
                    self._post_stop_note(run)
                    return
                delivered = self._deliver(run, "answer", lambda: self._stream_or_post(run))
                # After the answer, not before: "the answer is below" only once it is (a streamed answer
                # closed its own message); a scheduled re-delivery closes it when it gets through.
                if delivered != "scheduled":
                    self.progress.close(
                        run, _closing(run) if delivered == "delivered" else wording.PROGRESS_ANSWER_UNDELIVERED
                    )
            case InDoubt():
                pass  # the gate edits the card and posts the notice through the port's methods
            case _:
                assert_never(event)

    def _stream_or_post(self, run: RunState) -> None:
        """The answer into the streaming progress message where it can go, else as messages of its own."""
        if not self.stream_answer(run):
            self.post_answer(run)

    # -- the answer ----------------------------------------------------------------------------

    def stream_answer(self, run: RunState) -> bool:
        """Where the progress message streams, the answer goes into it (bot/slack/stream.py).
        False when it must be posted instead, as a message of its own."""
        if streamed(run):
            self._record_turn(run)  # a re-delivery: the answer is there already
            return True
        if not can_stream(run):
            return False
        outcome = self.answer_stream.deliver(run, self.progress.task_chunks())
        self.progress.pending.clear()
        match outcome:
            case "message_gone":
                SlackSurface.of(run).progress_open = False  # someone deleted it: post the answer on its own
                self.store.save(run)
                return False
            case "stopped_by_user":
                self.progress.user_stopped(run)
                self._post_stop_note(run)
                return True
            case "streamed" | "finished_by_update":
                self._clear_status(run)
                self._record_turn(run)
                return True
            case _:
                assert_never(outcome)

    def post_answer(self, run: RunState) -> None:
        """Post the answer once (bot/slack/answer.py); on a re-delivery update the messages already
        posted, if it changed."""
        if self.answer.post(run):
            self._clear_status(run)
        self._record_turn(run)

    def _post_stop_note(self, run: RunState) -> None:
        """The one short line a stopped run leaves in the thread (once, across re-deliveries)."""
        if SlackSurface.of(run).stop_note_ts:
            return
        reply = self.create_client.chat_postMessage(
            channel=channel_of(run), thread_ts=thread_of(run), text=wording.PROGRESS_STOPPED
        )
        SlackSurface.of(run).stop_note_ts = reply["ts"]
        self.store.save(run)
        self._clear_status(run)

    def _clear_status(self, run: RunState) -> None:
        """Posting clears the bot's "is looking into it" status; clear it explicitly in case it landed late,
        unless the answer is on record before the web process could have shown it (a Web API call fewer)."""
        if time.time() - run.created_at < STATUS_UNSEEN_SECONDS:
            return
        try:
            self.client.assistant_threads_setStatus(channel_id=channel_of(run), thread_ts=thread_of(run), status="")
        except SlackClientError:
            pass  # cosmetic: Slack drops the status by itself after two minutes

    def _record_turn(self, run: RunState) -> None:
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

    def hand_off(self, run: RunState, looked_at: str) -> None:
        """The hand-off in the thread as the run's one message (a retried job finds it in `answer_ts`); what was
        looked at becomes the thread's turn, so the asker's next reply has the question in view."""
        surface = SlackSurface.of(run)
        self._record_turn(run)
        if not self.handoff or surface.answer_ts:
            return
        text = run_words.HANDOFF.format(who=self.handoff, looked_at=escape(defuse(looked_at)))

        def post() -> None:
            reply = self.create_client.chat_postMessage(
                channel=channel_of(run), thread_ts=thread_of(run), text=text, unfurl_links=False, unfurl_media=False
            )
            surface.answer_ts = [reply["ts"]]
            self.store.save(run)

        self._deliver(run, "answer", post)  # through a Slack outage, as an answer is

    # -- approvals -----------------------------------------------------------------------------

    def post_approval_cards(self, run: RunState, pending: Sequence[PendingCall]) -> None:
        """One card per pending call (approval_cards skips calls whose card is already posted)."""
        approval_cards.post(self.create_client, run, pending, conn=self.store.conn, tracker=self.tracker)

    def card_decided(
        self, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False
    ) -> bool:
        if is_triage(approval.pending_id):
            return True  # a triage card is re-rendered whole by its run's job (triage_card)
        return approval_cards.update(self.client, approval, result=result, ok=ok, in_doubt=in_doubt)

    def notice_in_doubt(self, run: RunState, approval: Approval, issue_url: str | None = None) -> None:
        approval_cards.tell_in_doubt(self.create_client, run, approval, issue_url)

    def triage_card(self, run: RunState) -> None:
        """Through a Slack outage as an answer is (a scheduled re-delivery re-runs the run's job, which shows
        the card again: posted once, bot/slack/card_marker.py), not three quick tries and then never."""
        triage_card.show(
            self.client,
            self.create_client,
            self.store,
            run,
            self.tracker,
            deliver=lambda send: self._deliver(run, "triage_card", send),
        )

    # -- the thread, later ---------------------------------------------------------------------

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        channel, thread = place.channel or "", place.thread_ts
        mark = card_marker.note_marker(once.key) if once is not None else None

        def send() -> tuple[str, str]:
            reply = self.create_client.chat_postMessage(
                channel=channel,
                thread_ts=thread,
                text=escape(defuse(text)),
                unfurl_links=False,
                unfurl_media=False,
                metadata=mark,
            )
            return str(reply["channel"]), str(reply["ts"])

        try:
            if once is None or mark is None:
                send()
            else:  # a retried job finds the note a killed worker posted by its marker in the thread
                post_once(
                    once,
                    channel,
                    post=send,
                    find=lambda since: card_marker.find_marked(self.client, channel, mark, since, thread),
                )
        except SlackApiError as exc:
            if error_code(exc) in GONE_ERRORS:
                return "gone"
            raise
        return "posted"

    def permalink(self, place: Origin) -> str | None:
        reply = self.client.chat_getPermalink(channel=place.channel or "", message_ts=place.thread_ts or "")
        return str(reply.get("permalink") or "") or None


def _closing(run: RunState) -> str:
    """The progress message's last line once the answer (or the failure note) is in the thread."""
    if run.status == "failed":
        return wording.PROGRESS_FAILED
    return wording.PROGRESS_DONE.format(steps=len(run.steps), step_word=run_words.steps_word(len(run.steps)))
