"""`POST /discord/interactions`: verify, then answer Discord in the HTTP response itself.

The signature is checked before anything reads the body (401 on failure: Discord sends bad
signatures on purpose to test this). Then:
- PING -> PONG;
- `/atlas ask`: claim, record, enqueue (bot/discord/intake.py), answered with a deferred response
  (type 5); the worker edits it with progress and posts the answer;
- the lookup command: the lookup runs here, answered at once, ephemeral, with a Share button;
- buttons: approve / deny (approvers only: anyone else gets an ephemeral refusal), feedback and
  share, each answered by updating the message or with a new one;
- a triage card's label select, reply Edit button and modal (bot/discord/triage_edits.py).
Nothing here calls Discord's API: every reply is the response body, within milliseconds.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, assert_never

import redis

from bot import lookups
from bot.discord import commands, file_issue, intake, solved
from bot.discord.approvers import DiscordPolicy
from bot.discord.cards import clicked_payload
from bot.discord.lookup_command import lookup_reply
from bot.discord.replies import (
    APPLICATION_COMMAND,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    EPHEMERAL,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PING,
    PONG,
    UPDATE_MESSAGE,
    Reply,
    ephemeral,
    message,
)
from bot.discord.signature import Verifier
from bot.discord.triage_edits import TriageEdits
from bot.discord.views import triage_controls as controls
from bot.discord.views.answer import feedback_row
from bot.discord.views.components import (
    APPROVE_PREFIX,
    DENY_PREFIX,
    FEEDBACK_PREFIX,
    FILE_ISSUE_PREFIX,
    MARK_ANSWER_PREFIX,
    SHARE_PREFIX,
)
from bot.discord.views.ephemeral import click_note_text
from bot.discord.views.intake_notes import intake_note_text
from bot.discord.views.lookup import lookup_payload
from workers.approvals import decisions
from workers.approvals import records as approvals
from workers.approvals.approvers import Standing
from workers.approvals.decisions import Decided, Misplaced, Missing, Refused, Stale, Unsettled
from workers.approvals.place import Place
from workers.console_data import votes
from workers.messages.approval import Decision
from workers.messages.ephemeral import AlreadyDecided, Elsewhere, Gone, NotAllowed, Unrecorded
from workers.messages.intake_notes import EmptyQuestion, Unavailable, UnknownCommand
from workers.messages.lookup import LookupFailed
from workers.runs.job_hash import JobTemplate
from workers.runs.queueing import resume_if_waiting
from workers.runs.state import Origin
from workers.runs.surfaces import DiscordInteraction, DiscordSurface
from workers.runs.triage_record import is_triage

log = logging.getLogger("atlas.discord.interactions")

MAX_BODY_BYTES = 1 << 20


class Interactions:
    """The endpoint as a WSGI app; `handle(payload)` is the part after verification."""

    def __init__(self, settings: Any, conn: redis.Redis, lookup: lookups.Lookups) -> None:
        if not settings.discord_public_key:
            raise ValueError("DISCORD_PUBLIC_KEY is not set")
        self.settings, self.conn, self.lookups = settings, conn, lookup
        self.verifier = Verifier(settings.discord_public_key)
        self.policy = DiscordPolicy.from_settings(settings)
        if settings.slash_command.lstrip("/").lower() == commands.ASK_COMMAND:
            log.info(
                "the Discord lookup command is /%s: /%s (ATLAS_SLASH_COMMAND) is the ask command's name",
                settings.lookup_command,
                commands.ASK_COMMAND,
            )
        self.resume_job = JobTemplate.build(
            conn, settings.queue_name, slack_outage_seconds=settings.slack_outage_seconds
        )

        self.triage_edits = TriageEdits(conn, self.policy)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "POST":
            return _respond(start_response, "405 Method Not Allowed", {"error": "POST only"})
        try:
            length = min(int(environ.get("CONTENT_LENGTH") or 0), MAX_BODY_BYTES)
        except ValueError:
            length = 0
        body = environ["wsgi.input"].read(length) if length else b""
        if not self.verifier.valid(
            environ.get("HTTP_X_SIGNATURE_ED25519"), environ.get("HTTP_X_SIGNATURE_TIMESTAMP"), body
        ):
            return _respond(start_response, "401 Unauthorized", {"error": "invalid request signature"})
        try:
            payload = json.loads(body)
        except ValueError:
            return _respond(start_response, "400 Bad Request", {"error": "not JSON"})
        try:
            reply = self.handle(payload)
        except Exception:
            log.exception("interaction %s failed", payload.get("type"))
            reply = message({**lookup_payload(LookupFailed()), "flags": EPHEMERAL})
        return _respond(start_response, "200 OK", reply)

    def handle(self, payload: dict[str, Any]) -> Reply:
        kind = payload.get("type")
        if kind == PING:
            return {"type": PONG}
        data = payload.get("data") or {}
        if kind == APPLICATION_COMMAND:
            if data.get("name") == commands.ASK_COMMAND:
                return self.ask(payload, data)
            if data.get("name") == self.settings.lookup_command:
                return lookup_reply(
                    self.lookups, self.settings, commands.lookup_text(data.get("options") or []), payload
                )
            return ephemeral(intake_note_text(UnknownCommand()))
        if kind == MESSAGE_COMPONENT:
            return self.click(payload, str(data.get("custom_id") or ""))
        if kind == MODAL_SUBMIT and str(data.get("custom_id") or "").startswith(controls.MODAL_PREFIX):
            try:
                return self.triage_edits.submit(payload, str(data["custom_id"]).removeprefix(controls.MODAL_PREFIX))
            except redis.RedisError as exc:
                log.warning("triage choice not recorded: %s", type(exc).__name__)
                return ephemeral(click_note_text(Unrecorded()))
        return ephemeral(intake_note_text(UnknownCommand()))

    # -- commands ------------------------------------------------------------------------------

    def ask(self, payload: dict[str, Any], data: dict[str, Any]) -> Reply:
        sub = (data.get("options") or [{}])[0]
        question = " ".join(
            str(next((o.get("value") for o in sub.get("options") or [] if o.get("name") == "question"), "")).split()
        )
        if not question:
            return ephemeral(intake_note_text(EmptyQuestion()))
        user = _user(payload)
        origin = Origin(
            kind="discord", user=user.get("id"), channel=payload.get("channel_id"), team=payload.get("guild_id")
        )
        hook = DiscordInteraction(
            app=str(payload.get("application_id") or self.settings.discord_application_id),
            token=str(payload.get("token") or ""),
            at=time.time(),
        )
        try:
            intake.submit(
                self.conn,
                self.settings,
                kind="interaction",
                ident=str(payload.get("id")),
                question=question[: commands.MAX_QUESTION_CHARS],
                origin=origin,
                surface=DiscordSurface(interaction=hook),
            )
        except redis.RedisError as exc:
            log.warning("interaction %s not queued: %s", payload.get("id"), type(exc).__name__)
            return ephemeral(intake_note_text(Unavailable()))
        return {"type": DEFERRED_CHANNEL_MESSAGE}

    # -- buttons -------------------------------------------------------------------------------

    def click(self, payload: dict[str, Any], custom_id: str) -> Reply:
        user = _user(payload)
        if custom_id.startswith(SHARE_PREFIX):
            shared_by = str(user.get("id") or "?")
            return lookup_reply(
                self.lookups, self.settings, custom_id[len(SHARE_PREFIX) :], payload, shared_by=shared_by
            )
        try:
            if custom_id.startswith(FEEDBACK_PREFIX):
                return self.vote(custom_id[len(FEEDBACK_PREFIX) :], str(user.get("id") or ""))
            if custom_id.startswith(FILE_ISSUE_PREFIX):
                return file_issue.click(
                    self.conn,
                    self.settings.queue_name,
                    payload,
                    custom_id.removeprefix(FILE_ISSUE_PREFIX),
                    self.settings.repos,
                )
            if custom_id.startswith(MARK_ANSWER_PREFIX):
                return solved.click(
                    self.conn, self.settings.queue_name, payload, custom_id.removeprefix(MARK_ANSWER_PREFIX)
                )
            if custom_id.startswith(APPROVE_PREFIX):
                return self.decide(payload, custom_id[len(APPROVE_PREFIX) :], "approved")
            if custom_id.startswith(DENY_PREFIX):
                return self.decide(payload, custom_id[len(DENY_PREFIX) :], "denied")
            if custom_id.startswith(controls.PICK_PREFIX):
                values = [str(v) for v in (payload.get("data") or {}).get("values") or []]
                return self.triage_edits.pick(payload, custom_id.removeprefix(controls.PICK_PREFIX), values)
            if custom_id.startswith(controls.EDIT_PREFIX):
                return self.triage_edits.edit(custom_id.removeprefix(controls.EDIT_PREFIX))
        except redis.RedisError as exc:
            log.warning("click not recorded: %s", type(exc).__name__)
            return ephemeral(click_note_text(Unrecorded()))
        return ephemeral(intake_note_text(UnknownCommand()))

    def vote(self, value: str, user: str) -> Reply:
        run_id, _, vote = value.rpartition(":")
        if not run_id or vote not in ("up", "down") or not user:
            return ephemeral(intake_note_text(UnknownCommand()))
        votes.toggle(self.conn, run_id, user, vote)  # type: ignore[arg-type]
        counts = list(votes.votes(self.conn, run_id).values())
        return message({"components": feedback_row(run_id, counts.count("up"), counts.count("down"))}, UPDATE_MESSAGE)

    def decide(self, payload: dict[str, Any], pending_id: str, decision: approvals.Decision) -> Reply:
        """Judge the clicker from the interaction itself, then load, authorize and decide in one round trip."""
        user = _user(payload)
        user_id = str(user.get("id") or "")
        right = Standing.known(user_id, self.policy.may_decide(payload))
        place = Place(
            platform="discord",
            team=str(payload.get("guild_id") or ""),
            channel=str(payload.get("channel_id") or ""),
            message=str((payload.get("message") or {}).get("id") or ""),
        )
        try:
            result = decisions.decide(
                self.conn,
                pending_id,
                decision,
                user_id,
                str(user.get("username") or ""),
                right,
                place=place,
                resume=self.resume_job,
            )
        except redis.RedisError as exc:
            log.warning("click not confirmed: %s", type(exc).__name__)
            return ephemeral(click_note_text(Unrecorded(decisions.maybe_recorded(exc))))
        match result:
            case Decided():
                if result.step_complete and not result.resume_queued:
                    self._resume(result.approval)
                if is_triage(pending_id):  # several actions on one card: its run's resume re-renders it whole
                    return {"type": DEFERRED_UPDATE_MESSAGE}
                return message(clicked_payload(self.conn, result.approval, result.step_complete), UPDATE_MESSAGE)
            case Misplaced():
                log.warning(
                    "click by %s on %s refused: not from the card's guild, channel or message", user_id, pending_id[:80]
                )
                return ephemeral(click_note_text(Elsewhere()))
            case Stale(approval=stale):
                if decisions.resume_lost(self.conn, stale):
                    self._resume(stale)  # repairs a resume lost between deciding and enqueueing
                decided = Decision(stale.status, stale.decider, stale.decided_at or time.time())
                return ephemeral(click_note_text(AlreadyDecided(decided)))
            case Refused() | Unsettled():  # a known right is never unsettled; refuse if it were
                log.info("click by %s on %s refused: not an approver", user_id, pending_id)
                return ephemeral(click_note_text(NotAllowed()))
            case Missing():
                return ephemeral(click_note_text(Gone()))
            case _:
                assert_never(result)

    def _resume(self, approval: approvals.Approval) -> None:
        resume_if_waiting(
            self.conn,
            self.settings.queue_name,
            approval.run_id,
            approval.step,
            slack_outage_seconds=self.settings.slack_outage_seconds,
        )


def _user(payload: dict[str, Any]) -> dict[str, Any]:
    """The interacting user: `member.user` in a server, `user` in a DM."""
    return (payload.get("member") or {}).get("user") or payload.get("user") or {}


def _respond(start_response: Callable[..., Any], status: str, body: dict[str, Any]) -> list[bytes]:
    raw = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(raw)))])
    return [raw]
