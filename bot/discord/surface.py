"""The run's Discord thread: live progress, approval cards (bot/discord/cards.py), then the answer,
posted exactly once.

The reporter renders (bot/discord/views/) and posts where the run speaks (bot/discord/post.py: the
interaction's webhook while its token lives, else the channel or the run's thread); the live progress message is
bot/discord/progress.py. Approval cards are always bot messages: an approval may wait a day.

Idempotency lives in the run's `DiscordSurface`, saved right after each message is created, as on Slack.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, assert_never

from bot.discord import card_marker, participants, threads, triage_card
from bot.discord import cards as approval_cards
from bot.discord.post import Poster
from bot.discord.progress import ProgressMessage
from bot.discord.rest import DiscordError, DiscordREST, rest_client
from bot.discord.views.answer import answer_messages
from bot.discord.views.notices import handoff_text, note_text
from tools.demo_tracker import demo_tracker
from tools.tracker import Tracker
from tools.trackers import tracker_for
from workers.agent.events import Finished, InDoubt, Paused, RunEvent, StepStarted, ToolCalled
from workers.approvals.records import Approval
from workers.chat import ChatPlatform, ThreadNote
from workers.messages.answer import answer_of
from workers.messages.notices import HandOff
from workers.messages.notices import ThreadNote as Note
from workers.messages.progress import TASK_STATUS, ProgressEnd, Task, end_of
from workers.messages.task_titles import task_title
from workers.runs import conversations
from workers.runs.post_once import KeyedSlot, post_once
from workers.runs.state import Origin, RunState, Turn
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordSurface
from workers.runs.triage_record import is_triage

log = logging.getLogger("atlas.discord.surface")

GONE = frozenset({10003, 50001})  # Unknown Channel, Missing Access: Atlas may no longer post there


class DiscordReporter(ChatPlatform):
    """Posts a Discord-origin run's progress, cards and answer. One instance per job."""

    def __init__(
        self,
        rest: DiscordREST,
        store: RunStore,
        *,
        docs_base_url: str | None = None,
        issues_base_url: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        data_dir: Path | None = None,
        home: Path | None = None,
        tracker: Tracker | None = None,
        handoff_roles: tuple[str, ...] = (),
    ) -> None:
        self.rest, self.store = rest, store
        self.handoff_roles = handoff_roles  # ATLAS_HANDOFF's Discord roles: whom a help run that is not confident asks
        self.tracker = tracker  # the worker's: what approval and triage cards describe issues from
        self.data_dir, self.home = (
            data_dir,
            home,
        )  # the demo tracker's folder (cards describe its issues) and ATLAS_HOME
        self.docs_base_url, self.issues_base_url = docs_base_url, issues_base_url
        self.poster = Poster(rest, store)
        self.progress = ProgressMessage(self.poster, clock)

    @classmethod
    def for_settings(cls, settings: Any, store: RunStore, tracker: Tracker | None = None) -> DiscordReporter:
        """`tracker`: the worker's; by default the one the settings name (the demo SQLite one or GitHub), as Slack's."""
        return cls(
            rest_client(settings),
            store,
            docs_base_url=settings.docs_base_url,
            issues_base_url=settings.issues_base_url,
            data_dir=settings.data_dir,
            home=settings.home,
            tracker=tracker or tracker_for(settings, store.conn),
            handoff_roles=settings.help.discord_handoff(),
        )

    # -- events --------------------------------------------------------------------------------

    def event(self, run: RunState, event: RunEvent) -> None:
        if run.origin.kind != "discord" or not run.origin.channel:
            return
        match event:
            case StepStarted(step=step):
                self.progress.stepped(run, step)
            case ToolCalled(call_id=call_id, name=name, arguments=arguments, state=state):
                self.progress.tool(run, Task(call_id, task_title(name, arguments), TASK_STATUS[state]))
            case Paused(pending=pending):
                self.progress.close(run, ProgressEnd("paused"))
                self.post_cards(run, list(pending))
            case Finished():
                self.progress.close(run, end_of(run))
                self.post_answer(run)
            case InDoubt():
                pass  # the gate edits the card and posts the notice through the port's methods
            case _:
                assert_never(event)

    def channel(self, run: RunState) -> str:
        """The channel or thread the run speaks in; a mention's thread is started on first use
        (bot/discord/threads.py)."""
        return self.poster.channel(run)

    # -- the answer ----------------------------------------------------------------------------

    def post_answer(self, run: RunState) -> None:
        """Post the answer once; on a re-delivery edit the messages already posted, if it changed, and
        delete those left over from a longer earlier delivery (as Slack's bot/slack/answer.py)."""
        messages = answer_messages(
            answer_of(run, docs_base_url=self.docs_base_url, issues_base_url=self.issues_base_url)
        )
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        surface = DiscordSurface.of(run)
        posted = list(surface.answer_ids)
        if surface.answer_digest != digest or len(posted) != len(messages):
            for index, message in enumerate(messages):
                if index < len(posted):
                    self.poster.edit(run, posted[index][0], posted[index][1], message)
                    continue
                posted.append(self.poster.create(run, message))
                surface.answer_ids = posted
                self.store.save(run)  # remembered before anything else can fail
            for message_id, how in posted[len(messages) :]:  # an earlier delivery's, longer: its leftovers
                self.poster.delete(run, message_id, how)
            surface.answer_ids, surface.answer_digest = posted[: len(messages)], digest
            self.store.save(run)
        self._record_turn(run)

    def _record_turn(self, run: RunState) -> None:
        """A finished answer in its thread becomes context for follow-ups there (once per run). A hand-off
        that posted nothing records it under the thread that is (a forum post's) or would be started
        from the question's message: both have the message's id."""
        surface = DiscordSurface.of(run)
        if (
            run.status not in ("done", "partial")
            or not run.answer
            or surface.interaction is not None
            or surface.reply_to
        ):
            return
        thread = surface.thread_id or run.origin.thread_ts or run.origin.message_ts or ""
        if thread and thread != run.origin.channel:
            conversations.append(
                self.store.conn,
                threads.conversation_team(run.origin.team),
                thread,
                thread,
                run.id,
                Turn(question=run.question, answer=run.answer, asker=run.origin.user),
            )

    def hand_off(self, run: RunState, looked_at: str) -> None:
        """The hand-off in the thread as the run's one message, pinging only the hand-off roles; what was
        looked at becomes the thread's turn even with no roles to hand off to (as on Slack), so the
        asker's next reply has the question in view."""
        surface = DiscordSurface.of(run)
        if not self.handoff_roles or surface.answer_ids:
            self._record_turn(run)
            return
        text = handoff_text(HandOff(who=" ".join(f"<@&{role}>" for role in self.handoff_roles), looked_at=looked_at))
        mentions = {"parse": [], "roles": list(self.handoff_roles)}  # the roles ping; nothing else does
        surface.answer_ids = [self.poster.create(run, {"content": text, "allowed_mentions": mentions})]
        self.store.save(run)
        self._record_turn(run)  # where it was posted: the thread, or the channel it replied in (then no turn)

    # -- approvals -----------------------------------------------------------------------------

    def post_cards(self, run: RunState, pending: list[Any]) -> list[str]:
        """One card per pending call, as an ordinary bot message (bot/discord/cards.py skips calls already carded)."""
        tracker = self.tracker  # the worker's (GitHub's in a real deployment), as Slack's cards and the triage card
        if tracker is None and self.data_dir:
            tracker = demo_tracker(self.data_dir, self.issues_base_url, self.home)
        return approval_cards.post(
            self.rest, self.store.conn, run, pending, tracker=tracker, channel=lambda: self.channel(run)
        )

    def card_decided(
        self, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False
    ) -> bool:
        if is_triage(approval.pending_id):
            return True  # a triage card is re-rendered whole by its run's job (triage_card)
        return approval_cards.update(self.rest, approval, result=result, ok=ok, in_doubt=in_doubt)

    def notice_in_doubt(self, run: RunState, approval: Approval, issue_url: str | None = None) -> None:
        approval_cards.tell_in_doubt(self.rest, self.channel(run), run, approval, issue_url)

    def triage_card(self, run: RunState) -> None:
        triage_card.show(self.rest, self.store, run, self.tracker)

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        channel, content = place.channel or "", note_text(Note(text))

        def send() -> tuple[str, str]:
            nonce = {"nonce": card_marker.note_nonce(once.key), "enforce_nonce": True} if once is not None else {}
            reply = self.rest.create_message(channel, {"content": content, **nonce})  # mentions never ping (rest.py)
            return channel, str(reply["id"])

        try:
            if once is None:
                send()
            else:  # the nonce for a few minutes, then a retried job finds the note by its text
                post_once(
                    once,
                    channel,
                    post=send,
                    find=lambda since: card_marker.find_note(self.rest, channel, content, since),
                )
        except DiscordError as exc:
            if exc.code in GONE:
                return "gone"
            raise
        return "posted"

    def permalink(self, place: Origin) -> str | None:
        return f"https://discord.com/channels/{place.team or '@me'}/{place.channel}" if place.channel else None

    def people(self, source: RunState) -> list[str]:
        thread = source.surface.thread_id if isinstance(source.surface, DiscordSurface) else None
        askers = [source.origin.user, *(turn.asker for turn in source.history)]
        return participants.names(self.rest, source.origin.team, thread or source.origin.thread_ts, askers)
