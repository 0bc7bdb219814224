"""The run's Slack thread, as the core's chat-platform port (workers/chat.py): live progress while it works
(bot/slack/progress.py), then the answer, posted exactly once (bot/slack/thread_answer.py: streamed into the
progress message or as messages of its own), and the approval cards (bot/slack/cards.py). When the person presses
stop (`stopped_by_user`), the run ends at its next step boundary and the thread gets one short note instead of
anything more.

Each event's message is composed as a value (workers/messages/), rendered (bot/slack/views/) and posted, in that
order. Idempotency lives in the run's `SlackSurface`, saved right after each message is created: a re-delivered
answer (a retried job, a worker that died after saving) updates the messages it finds there instead of posting
again. Nothing else is kept between jobs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import assert_never

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from atlas.settings import Settings
from bot.slack import card_marker, participants, triage_card
from bot.slack import cards as approval_cards
from bot.slack.client import SlackClients, error_code
from bot.slack.delivery import Delivered, Delivery, Patience, Tries
from bot.slack.progress import PROGRESS_MIN_INTERVAL, ProgressMessage, channel_of, thread_of
from bot.slack.thread_answer import ThreadAnswer
from bot.slack.triage_card import DrawnCard
from bot.slack.views.answer import SlackAnswer, slack_answer
from bot.slack.views.notices import notice_text
from tools.tracker import Tracker
from tools.trackers import tracker_for
from workers.agent.events import Finished, InDoubt, Paused, RunEvent, StepStarted, ToolCalled
from workers.approvals.records import Approval
from workers.chat import ChatPlatform, ThreadNote
from workers.errors import StoppedByUser
from workers.messages import notices
from workers.messages.answer import answer_of
from workers.messages.notices import HandOff, InDoubtNotice, Stopped
from workers.messages.progress import ProgressEnd, end_of
from workers.runs.post_once import KeyedSlot, post_once
from workers.runs.redelivery import Redelivery
from workers.runs.state import Origin, PendingCall, RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import SlackSurface, Undeliverable
from workers.runs.triage_record import is_triage

__all__ = ["PROGRESS_MIN_INTERVAL", "SlackReporter"]

log = logging.getLogger("atlas.slack_surface")

GONE_ERRORS = frozenset({"not_in_channel", "channel_not_found", "is_archived"})  # Atlas may no longer post there


@dataclass(frozen=True)
class ApprovalCards:
    """A paused run's cards, one per pending call, delivered together."""

    pending: tuple[PendingCall, ...]


Outgoing = SlackAnswer | ApprovalCards | HandOff | DrawnCard  # what one delivery posts, as the reporter hands it down


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
        self.thread = ThreadAnswer(client, create_client, store, self.progress)
        self.docs_base_url, self.issues_base_url = docs_base_url, issues_base_url  # what makes sources links
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

    def _deliver(self, run: RunState, what: Undeliverable, message: Outgoing) -> Delivered:
        """Post through a Slack outage (later, by a scheduled re-delivery, when a scheduler runs); if it
        outlasts the budget, the thread and the run record say so. Each try is this reporter's own call down
        (`_post`); the delivery only says whether another is due, so nothing below calls back up."""
        delivery = Delivery(run, what, self.patience, self.store, self.later)
        while delivery.another_try():
            try:
                self._post(run, message)
            except Exception as exc:
                delivery.failed(exc)
            else:
                delivery.succeeded()
        if delivery.notice is not None:
            self._tell_undelivered(run, delivery.notice)
        return delivery.outcome

    def _post(self, run: RunState, message: Outgoing) -> None:
        """One try at posting `message`; each is idempotent (what was posted is remembered in the run)."""
        match message:
            case SlackAnswer():
                if self.thread.send(run, message) == "stopped_by_user":
                    self.thread.stop_note(run, notice_text(Stopped()))
            case ApprovalCards(pending=pending):
                self.post_approval_cards(run, pending)
            case HandOff():
                self.thread.post_hand_off(run, notice_text(message))
            case DrawnCard():
                triage_card.send(self.client, self.create_client, self.store, run, message)
            case _:
                assert_never(message)

    def _tell_undelivered(self, run: RunState, notice: notices.Undelivered) -> None:
        """The thread is told plainly, with a few tries of its own since Slack may still be down."""
        text = notice_text(notice)
        tries = Tries(Patience(self.patience.cap_seconds, self.patience.cap_seconds), what=f"run {run.id}: note")
        while tries.another():
            try:
                self.create_client.chat_postMessage(
                    channel=channel_of(run), thread_ts=thread_of(run) or None, text=text
                )
            except Exception as exc:
                tries.failed(exc)
            else:
                tries.succeeded()
        if tries.lost is not None:
            log.error(
                "run %s: the note about the undelivered %s was not delivered either: %s",
                run.id,
                notice.what,
                tries.lost,
            )

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
                self.progress.close(run, ProgressEnd("paused"))
                if surface.stopped_by_user:
                    raise StoppedByUser(run.id)  # no cards: the person asked for nothing more
                self._deliver(run, "cards", ApprovalCards(tuple(pending)))
            case Finished():
                if surface.stopped_by_user:
                    self.progress.close(run, end_of(run))
                    self.thread.stop_note(run, notice_text(Stopped()))
                    return
                answer = answer_of(run, docs_base_url=self.docs_base_url, issues_base_url=self.issues_base_url)
                delivered = self._deliver(run, "answer", slack_answer(answer))
                # After the answer, not before: "the answer is below" only once it is (a streamed answer
                # closed its own message); a scheduled re-delivery closes it when it gets through.
                if delivered != "scheduled":
                    self.progress.close(run, end_of(run) if delivered == "delivered" else ProgressEnd("undelivered"))
            case InDoubt():
                pass  # the gate edits the card and posts the notice through the port's methods
            case _:
                assert_never(event)

    def hand_off(self, run: RunState, looked_at: str) -> None:
        """The hand-off is the run's one message (a retried job finds it in `answer_ts`); what was looked at becomes
        the thread's turn first, so the asker's next reply has the question in view."""
        self.thread.record_turn(run)
        if self.handoff and not SlackSurface.of(run).answer_ts:
            self._deliver(run, "answer", HandOff(self.handoff, looked_at))

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
        """For the one who decided (or asked) to check at `issue_url`, the issue's page, when it has one."""
        notice = InDoubtNotice(approval.name, approval.issue or "?", approval.decider or run.origin.user, issue_url)
        approval_cards.tell_in_doubt(self.create_client, run, approval, notice_text(notice))

    def triage_card(self, run: RunState) -> None:
        """Through a Slack outage as an answer is (a scheduled re-delivery re-runs the run's job, which shows
        the card again: posted once, bot/slack/card_marker.py), not three quick tries and then never."""
        drawn = triage_card.draw(self.store, run, self.tracker)  # a card that cannot be drawn fails as it did
        if drawn is not None:
            self._deliver(run, "triage_card", drawn)

    # -- the thread, later ---------------------------------------------------------------------

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        channel, thread = place.channel or "", place.thread_ts
        mark = card_marker.note_marker(once.key) if once is not None else None

        def send() -> tuple[str, str]:
            reply = self.create_client.chat_postMessage(
                channel=channel,
                thread_ts=thread,
                text=notice_text(notices.ThreadNote(text)),
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

    def people(self, source: RunState) -> list[str]:
        """Every asker and every person who wrote in the thread (bot/slack/participants.py), best effort."""
        askers = [source.origin.user, *(turn.asker for turn in source.history)]
        return participants.names(self.client, channel_of(source), thread_of(source), askers)
