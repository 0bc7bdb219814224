"""A maintainer's choice on a Discord triage card before deciding (issue 24 item 2): the labels' select, the
reply's Edit modal (interaction response type 9) and its submission. The choice is recorded in one script
with the undecided, place and approver checks (workers/approvals/revisions.py), so Approve runs exactly
what was chosen before it; the card comes back re-rendered in the interaction response (type 7).
"""

from __future__ import annotations

import logging
from typing import Any

import redis

from bot.discord import triage_card, triage_controls
from bot.discord.approvers import DiscordPolicy
from bot.discord.replies import UPDATE_MESSAGE, Reply, ephemeral, message
from bot.discord.views.ephemeral import click_note_text
from bot.discord.views.triage_controls import reply_modal
from workers.approvals import revisions
from workers.approvals.approvers import Standing
from workers.approvals.decisions import Misplaced, Missing, Refused, Stale, Unsettled
from workers.approvals.place import Place
from workers.errors import RunNotFound
from workers.messages.ephemeral import Elsewhere, EmptyReply, Gone, NoLabelLeft, NotAllowed
from workers.messages.reply_editor import ReplyEditor
from workers.new_issues import choices
from workers.runs.state import RunState
from workers.runs.store import RunStore

log = logging.getLogger("atlas.discord.triage_edits")

MODAL = 9


class TriageEdits:
    """Label choices, the Edit button and the modal's submission, judged by the same policy as Approve."""

    def __init__(self, conn: redis.Redis, policy: DiscordPolicy) -> None:
        self.conn, self.policy = conn, policy

    def pick(self, payload: dict[str, Any], pending_id: str, values: list[str]) -> Reply:
        run = self._run(pending_id)
        action = choices.action_of(run, pending_id) if run is not None else None
        if action is None:
            return ephemeral(click_note_text(Gone()))
        arguments = choices.labels(action, values)
        return (
            ephemeral(click_note_text(NoLabelLeft()))
            if arguments is None
            else self._revise(payload, pending_id, arguments)
        )

    def edit(self, pending_id: str) -> Reply:
        """The modal, prefilled with the reply as it stands (anyone may open it; only an approver's submission
        counts)."""
        run = self._run(pending_id)
        action = choices.action_of(run, pending_id) if run is not None else None
        current = choices.current(self.conn, run) if run is not None and action is not None else {}
        if action is None or action.call_id not in current:
            return ephemeral(click_note_text(Gone()))
        return {
            "type": MODAL,
            "data": reply_modal(
                ReplyEditor(pending_id, str(current[action.call_id].get("body") or ""), choices.REPLY_MAX_CHARS)
            ),
        }

    def submit(self, payload: dict[str, Any], pending_id: str) -> Reply:
        run = self._run(pending_id)
        action = choices.action_of(run, pending_id) if run is not None else None
        if action is None:
            return ephemeral(click_note_text(Gone()))
        arguments = choices.reply(action, triage_controls.submitted_text(payload.get("data") or {}))
        if arguments is None:
            return ephemeral(click_note_text(EmptyReply(choices.REPLY_MAX_CHARS)))
        return self._revise(payload, pending_id, arguments)

    def _revise(self, payload: dict[str, Any], pending_id: str, arguments: str) -> Reply:
        user = (payload.get("member") or {}).get("user") or payload.get("user") or {}
        user_id = str(user.get("id") or "")
        place = Place(
            platform="discord",
            team=str(payload.get("guild_id") or ""),
            channel=str(payload.get("channel_id") or ""),
            message=str((payload.get("message") or {}).get("id") or ""),
        )
        found = revisions.revise(
            self.conn,
            pending_id,
            arguments,
            user_id,
            str(user.get("username") or ""),
            Standing.known(user_id, self.policy.may_decide(payload)),
            place=place,
        )
        if isinstance(found, revisions.Revised):
            run = self._run(pending_id)
            if run is None or run.triage is None:
                return ephemeral(click_note_text(Gone()))
            return message(triage_card.card_payload(run, None, choices.current(self.conn, run)), UPDATE_MESSAGE)
        if isinstance(found, Refused | Unsettled):  # a known right is never unsettled; refuse if it were
            log.info("triage choice by %s on %s refused: not an approver", user_id, pending_id)
            return ephemeral(click_note_text(NotAllowed()))
        if isinstance(found, Misplaced):
            return ephemeral(click_note_text(Elsewhere()))
        assert isinstance(found, Stale | Missing)
        return ephemeral(click_note_text(Gone()))

    def _run(self, pending_id: str) -> RunState | None:
        try:
            return RunStore(self.conn).load(pending_id.partition(".")[0])
        except RunNotFound:  # expired or never there: the control is on a card that is gone
            return None
