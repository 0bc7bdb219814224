"""Approve / Deny clicks on approval cards: ack, authorize, decide atomically, edit the card, resume.

Bolt acks first; everything after is a few Redis round trips and one Slack call, on the listener
pool. Only an approver (workers/approvers.py) may decide; anyone else gets an ephemeral "you can't
approve this" and nothing changes. The decision is one atomic script (workers/approvals.py): the
first click wins, and the click that decides the step's last pending call enqueues the resume.
A click on an already decided card changes nothing; if that step's resume was never enqueued
(the bot died right after deciding), it is enqueued then, which is idempotent by job id.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import redis
from slack_bolt import Ack, App

from bot import wording
from bot.deps import Deps
from bot.ephemeral import tell_clicker
from workers import approval_cards, approvals
from workers.approval_cards import APPROVE_ACTION, DENY_ACTION
from workers.approvals import Decided, Decision, Stale
from workers.approvers import Directory, Policy, SlackDirectory, may_decide
from workers.queueing import resume_if_waiting

log = logging.getLogger("atlas.bot.approvals")


def register(app: App, deps: Deps) -> None:
    """Wire both buttons with the approver policy read from settings (and Slack's directory, cached in Redis)."""
    policy = Policy.from_settings(deps.settings)
    directory = SlackDirectory(deps.client, deps.redis)
    app.action(APPROVE_ACTION)(on_click(deps, "approved", policy, directory))
    app.action(DENY_ACTION)(on_click(deps, "denied", policy, directory))


def on_click(deps: Deps, decision: Decision, policy: Policy, directory: Directory) -> Callable[..., None]:
    def handle_approval(ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        ack()
        user = body.get("user") or {}
        user_id, user_name = str(user.get("id") or ""), str(user.get("username") or user.get("name") or "")
        pending_id = str(action.get("value") or "")
        try:
            approval = approvals.load(deps.redis, pending_id) if pending_id else None
            if approval is None:
                tell_clicker(deps, body, user_id, wording.APPROVAL_GONE)
                return
            if not may_decide(user_id, approval.requester, policy, directory):
                log.info("click by %s on %s refused: not an approver", user_id, pending_id)
                tell_clicker(deps, body, user_id, wording.APPROVAL_NOT_ALLOWED)
                return
            result = approvals.decide(deps.redis, pending_id, decision, user_id, user_name)
            if isinstance(result, Decided):
                if result.step_complete:  # first: a slow or failing card edit must not hold the run back
                    _resume(deps, result.approval)
                _edit_card(deps, body, result.approval)
            elif isinstance(result, Stale):
                stale = result.approval
                text = approval_cards.outcome_line(stale) if stale.decided else wording.APPROVAL_OUTCOME["expired"].format(when="now")
                tell_clicker(deps, body, user_id, wording.APPROVAL_ALREADY.format(outcome=text))
                if stale.decided and approvals.step_complete(deps.redis, stale.run_id, stale.step):
                    _resume(deps, stale)  # repairs a resume lost between deciding and enqueueing
            else:
                tell_clicker(deps, body, user_id, wording.APPROVAL_GONE)
        except redis.RedisError as exc:
            log.warning("approval click not recorded: %s", type(exc).__name__)
            tell_clicker(deps, body, user_id, wording.EPHEMERAL_UNAVAILABLE)

    return handle_approval


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
