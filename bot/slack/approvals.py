"""Approve / Deny clicks on approval cards: verify, authorize, decide atomically, ack; then the rest.

Only what Slack's answer needs runs before the ack, on the request thread (a listener middleware,
as for mentions: no hop through Bolt's listener pool): Bolt verifies the signature, the click's
approval is loaded, the clicker is checked against the approver policy (workers/approvals/approvers.py), and
the decision is one atomic script (workers/approvals/records.py): the first click wins, and the click that
decides the step's last pending call claims its resume. Everything else (the card edit, the resume
enqueue, the "you can't approve this" or "already decided" notes) runs after the ack on the bot's
background pool. A click on an already decided card changes nothing; if that step's resume was
never enqueued (the bot died right after deciding), it is enqueued then, idempotent by job id.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import redis
from slack_bolt import App, BoltResponse

from bot.deps import Deps
from bot.slack import cards as approval_cards
from bot.slack.cards import APPROVE_ACTION, DENY_ACTION
from bot.slack.ephemeral import tell_clicker
from workers import wording
from workers.approvals import records as approvals
from workers.approvals.approvers import Directory, Policy, SlackDirectory, may_decide
from workers.approvals.records import Decision
from workers.runs.queueing import resume_if_waiting

log = logging.getLogger("atlas.bot.slack.approvals")


def register(app: App, deps: Deps) -> None:
    """Wire both buttons with the approver policy read from settings (and Slack's directory, cached in Redis)."""
    policy = Policy.from_settings(deps.settings)
    directory = SlackDirectory(deps.client, deps.redis)
    app.action(APPROVE_ACTION, middleware=[on_click(deps, "approved", policy, directory)])(answered_by_middleware)
    app.action(DENY_ACTION, middleware=[on_click(deps, "denied", policy, directory)])(answered_by_middleware)


def on_click(deps: Deps, decision: Decision, policy: Policy, directory: Directory) -> Callable[..., BoltResponse]:
    """Listener middleware: decide, answer Slack, and leave the card edit and the resume to the pool."""

    def handle_approval(body: dict[str, Any], payload: dict[str, Any]) -> BoltResponse:
        user = body.get("user") or {}
        user_id, user_name = str(user.get("id") or ""), str(user.get("username") or user.get("name") or "")
        pending_id = str(payload.get("value") or "")
        try:
            approval = approvals.load(deps.redis, pending_id) if pending_id else None
            if approval is None:
                return _after(deps, tell_clicker, deps, body, user_id, wording.APPROVAL_GONE)
            if not may_decide(user_id, approval.requester, policy, directory):
                log.info("click by %s on %s refused: not an approver", user_id, pending_id)
                return _after(deps, tell_clicker, deps, body, user_id, wording.APPROVAL_NOT_ALLOWED)
            outcome, step_complete = approvals.record_decision(deps.redis, approval, decision, user_id, user_name)
        except redis.RedisError as exc:
            log.warning("approval click not recorded: %s", type(exc).__name__)
            return _after(deps, tell_clicker, deps, body, user_id, wording.EPHEMERAL_UNAVAILABLE)
        if outcome == "missing":
            return _after(deps, tell_clicker, deps, body, user_id, wording.APPROVAL_GONE)
        return _after(deps, _show, deps, body, user_id, approval, outcome == "decided", step_complete)

    return handle_approval


def _after(deps: Deps, work: Callable[..., None], *args: Any) -> BoltResponse:
    """Slack's answer now; `work` on the background pool, its failures logged, never the clicker's problem."""

    def run() -> None:
        try:
            work(*args)
        except Exception:
            log.exception("after an approval click: %s failed", getattr(work, "__name__", "work"))

    deps.background.submit(run)
    return BoltResponse(status=200, body="")


def _show(deps: Deps, body: dict[str, Any], user_id: str, before: approvals.Approval, decided: bool, step_complete: bool) -> None:
    """After the ack: resume the run if this click closed the step (first: nothing must hold the run
    back), then read the record as the decision left it and edit the card, or tell the clicker it
    was already decided."""
    if decided and step_complete:
        try:
            _resume(deps, before)
        except redis.RedisError as exc:  # the decision stands; the card keeps its buttons, so a click repairs it
            log.warning("resume of %s not enqueued: %s", before.run_id, type(exc).__name__)
            tell_clicker(deps, body, user_id, wording.EPHEMERAL_UNAVAILABLE)
            return
    try:
        after = approvals.load(deps.redis, before.pending_id) or before
    except redis.RedisError as exc:
        log.warning("approval record not read back: %s", type(exc).__name__)
        tell_clicker(deps, body, user_id, wording.EPHEMERAL_UNAVAILABLE)
        return
    if decided:
        _edit_card(deps, body, after)
    else:
        _already_decided(deps, body, user_id, after)


def _already_decided(deps: Deps, body: dict[str, Any], user_id: str, stale: approvals.Approval) -> None:
    """Tell the clicker the outcome; repair a resume lost between deciding and enqueueing."""
    text = approval_cards.outcome_line(stale) if stale.decided else wording.APPROVAL_OUTCOME["expired"].format(when="now")
    tell_clicker(deps, body, user_id, wording.APPROVAL_ALREADY.format(outcome=text))
    try:
        if stale.decided and approvals.step_complete(deps.redis, stale.run_id, stale.step):
            _resume(deps, stale)
    except redis.RedisError as exc:
        log.warning("resume repair of %s not enqueued: %s", stale.run_id, type(exc).__name__)
        tell_clicker(deps, body, user_id, wording.EPHEMERAL_UNAVAILABLE)


def _resume(deps: Deps, approval: approvals.Approval) -> None:
    """Enqueue the paused run's resume if it is still waiting on this step (idempotent by job id)."""
    resume_if_waiting(deps.redis, deps.settings.queue_name, approval.run_id, approval.step,
                      slack_outage_seconds=deps.settings.slack_outage_seconds)


def _edit_card(deps: Deps, body: dict[str, Any], approval: approvals.Approval) -> None:
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    ts = container.get("message_ts") or (body.get("message") or {}).get("ts")
    shown = (body.get("message") or {}).get("blocks") or []
    approval_cards.update(deps.client, approval, shown=shown, channel=channel, ts=ts)


def answered_by_middleware() -> None:
    """Never runs: `on_click` returns Slack's response for every Approve and Deny click."""
