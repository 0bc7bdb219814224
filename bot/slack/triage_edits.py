"""A maintainer's choice on a triage card before deciding (issue 24 item 2): labels ticked or not, the
reply edited in a modal. The choice is recorded before the ack, in one script with the undecided check
and the same place and approver checks as Approve (workers/approvals/revisions.py), so Approve runs
exactly what was chosen before it and a change after the decision changes nothing. After the ack the
card is re-rendered from the run and its approvals (a refused or late change shows the standing choice).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import redis
from slack_bolt import BoltRequest, BoltResponse
from slack_bolt.middleware import Middleware
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.approvals import Clicker, _after, _first_action
from bot.slack.client import error_code
from bot.slack.deps import Deps
from bot.slack.ephemeral import tell
from bot.slack.views.ephemeral import ephemeral_text
from bot.slack.views.reply_editor import REPLY_BLOCK, REPLY_CALLBACK, REPLY_INPUT, reply_modal
from bot.slack.views.triage import EDIT_ACTION, PICK_PREFIX, fallback_text, triage_blocks
from workers.approvals import revisions
from workers.approvals.approvers import Directory, Policy, standing
from workers.approvals.decisions import Misplaced, Missing, Refused, Stale, Unsettled
from workers.approvals.place import Place
from workers.errors import RunNotFound
from workers.messages.ephemeral import (
    ClickNote,
    EditorFailed,
    Elsewhere,
    EmptyReply,
    Gone,
    NoLabelLeft,
    NotAllowed,
    Unrecorded,
)
from workers.messages.reply_editor import ReplyEditor
from workers.messages.triage import triage_card_now
from workers.new_issues import choices
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageAction

log = logging.getLogger("atlas.bot.slack.triage_edits")


class TriageEdits(Middleware):
    """Label choices, the Edit button and the reply modal's submission; every other request passes."""

    def __init__(self, deps: Deps, policy: Policy, directory: Directory) -> None:
        self.deps, self.policy, self.directory = deps, policy, directory

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        try:
            return self.route(req.body, next)
        except redis.RedisError as exc:
            log.warning("triage choice not recorded: %s", type(exc).__name__)
            if req.body.get("type") == "view_submission":
                return _errors(Unrecorded())
            user = str((req.body.get("user") or {}).get("id") or "")
            return _after(self.deps, tell, self.deps, req.body, user, Unrecorded())

    def route(self, body: dict[str, Any], next: Callable[[], BoltResponse]) -> BoltResponse | None:
        action = _first_action(body)
        action_id = str(action.get("action_id") or "") if action is not None else ""
        if action is not None and action_id.startswith(PICK_PREFIX):
            selected = [str(o.get("value")) for o in action.get("selected_options") or []]
            return self.pick(body, action_id.removeprefix(PICK_PREFIX), selected)
        if action is not None and action_id == EDIT_ACTION:
            return self.open_modal(body, str(action.get("value") or ""))
        view = body.get("view") or {}
        if body.get("type") == "view_submission" and view.get("callback_id") == REPLY_CALLBACK:
            return self.submit(body, view)
        return next()

    def pick(self, body: dict[str, Any], pending_id: str, selected: list[str]) -> BoltResponse:
        clicker = _clicker(body)
        action = self._action(pending_id)
        arguments = choices.labels(action, selected) if action is not None else None
        if arguments is None:
            return _after(
                self.deps,
                self._refresh,
                clicker,
                pending_id,
                NoLabelLeft() if action is not None else Gone(),
            )
        found = self._revise(pending_id, arguments, clicker, clicker.place)
        return _after(self.deps, self._follow_up, clicker, pending_id, arguments, found, clicker.place)

    def open_modal(self, body: dict[str, Any], pending_id: str) -> BoltResponse:
        """views.open with the click's trigger id before the ack: the id is good for 3 seconds from the click, and
        the after-ack pool, shared and started only once the acks in flight are answered, may take longer.
        Slack's `expired_trigger_id` (or any failure) is told to the clicker, after the ack."""
        clicker = _clicker(body)
        current = choices.current(self.deps.redis, run) if (run := self._run(pending_id)) is not None else {}
        action = choices.action_of(run, pending_id) if run is not None else None
        if action is None or action.call_id not in current:
            return _after(self.deps, tell, self.deps, body, clicker.id, Gone())
        place = clicker.place
        editor = ReplyEditor(pending_id, str(current[action.call_id].get("body") or ""), choices.REPLY_MAX_CHARS)
        view = reply_modal(editor, place.channel, place.message)
        try:
            self.deps.client.views_open(trigger_id=str(body.get("trigger_id") or ""), view=view)
        except SlackApiError as exc:
            expired = error_code(exc) == "expired_trigger_id"
            log.warning("the reply editor for %s did not open: %s", pending_id, error_code(exc))
            return _after(self.deps, tell, self.deps, body, clicker.id, EditorFailed(expired))
        except SlackClientError as exc:
            log.warning("the reply editor for %s did not open: %s", pending_id, type(exc).__name__)
            return _after(self.deps, tell, self.deps, body, clicker.id, EditorFailed())
        return BoltResponse(status=200, body="")

    def submit(self, body: dict[str, Any], view: dict[str, Any]) -> BoltResponse:
        """Record the edited reply; a refusal is shown in the modal, which stays open."""
        try:
            meta = json.loads(view.get("private_metadata") or "{}")
        except ValueError:
            meta = {}
        pending_id = str(meta.get("pending_id") or "")
        value = (((view.get("state") or {}).get("values") or {}).get(REPLY_BLOCK) or {}).get(REPLY_INPUT) or {}
        user = body.get("user") or {}
        clicker = Clicker(
            {**body, "channel": {"id": meta.get("channel")}},
            str(user.get("id") or ""),
            str(user.get("username") or user.get("name") or ""),
        )
        place = Place(
            platform="slack",
            team=str((body.get("team") or {}).get("id") or user.get("team_id") or ""),
            channel=str(meta.get("channel") or ""),
            message=str(meta.get("ts") or ""),
        )
        action = self._action(pending_id)
        arguments = choices.reply(action, str(value.get("value") or "")) if action is not None else None
        if arguments is None:
            return _errors(Gone() if action is None else EmptyReply(choices.REPLY_MAX_CHARS))
        found = self._revise(pending_id, arguments, clicker, place)
        if isinstance(found, Refused):
            return _errors(NotAllowed())
        if isinstance(found, Stale | Missing | Misplaced):
            return _errors(Gone())
        return _after(self.deps, self._follow_up, clicker, pending_id, arguments, found, place)

    # -- after the ack ---------------------------------------------------------------------------

    def _follow_up(
        self, clicker: Clicker, pending_id: str, arguments: str, found: revisions.Outcome | None, place: Place
    ) -> None:
        if isinstance(found, Unsettled):
            found = revisions.settle(
                self.deps.redis, found, arguments, clicker.id, clicker.name, self.policy, self.directory, place=place
            )
        notes: dict[type, ClickNote] = {
            Refused: NotAllowed(),
            Stale: Gone(),
            Missing: Gone(),
            Misplaced: Elsewhere(),
            type(None): Unrecorded(),
        }
        self._refresh(clicker, pending_id, notes.get(type(found)))

    def _refresh(self, clicker: Clicker, pending_id: str, note: ClickNote | None) -> None:
        """Re-render the card with the choice as recorded; tell the clicker why theirs was not taken."""
        if note:
            tell(self.deps, clicker.body, clicker.id, note)
        run = self._run(pending_id)
        if (
            run is None
            or run.triage is None
            or not run.triage.card_ts
            or not any(p.pending_id == pending_id for p in run.pending)
        ):
            return  # decided meanwhile: the run's job renders the card
        card = triage_card_now(self.deps.redis, run, None)
        assert card is not None  # a triage run
        try:
            self.deps.client.chat_update(
                channel=run.triage.card_channel,
                ts=run.triage.card_ts,
                blocks=triage_blocks(card),
                text=fallback_text(card),
            )
        except SlackClientError as exc:
            log.warning("triage card %s not re-rendered: %s", run.id, type(exc).__name__)

    def _revise(self, pending_id: str, arguments: str, clicker: Clicker, place: Place) -> revisions.Outcome | None:
        try:
            return revisions.revise(
                self.deps.redis,
                pending_id,
                arguments,
                clicker.id,
                clicker.name,
                standing(clicker.id, self.policy),
                place=place,
            )
        except redis.RedisError as exc:
            log.warning("triage choice not recorded: %s", type(exc).__name__)
            return None

    def _run(self, pending_id: str) -> RunState | None:
        try:
            return RunStore(self.deps.redis).load(pending_id.partition(".")[0])
        except RunNotFound:  # expired or never there: the control is on a card that is gone
            return None

    def _action(self, pending_id: str) -> TriageAction | None:
        run = self._run(pending_id)
        return choices.action_of(run, pending_id) if run is not None else None


def _clicker(body: dict[str, Any]) -> Clicker:
    user = body.get("user") or {}
    return Clicker(body, str(user.get("id") or ""), str(user.get("username") or user.get("name") or ""))


def _errors(note: ClickNote) -> BoltResponse:
    """Slack shows the note under the input and keeps the modal open."""
    text = ephemeral_text(note)
    return BoltResponse(
        status=200,
        body=json.dumps({"response_action": "errors", "errors": {REPLY_BLOCK: text}}),
        headers={"content-type": "application/json"},
    )
