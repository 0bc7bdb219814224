"""Approve / Deny clicks on approval cards: verify, decide in one round trip, ack; then the rest.

Only what Slack's answer needs runs before the ack, on the request thread (a global middleware: no
hop through Bolt's listener pool, no walk past its listeners): Bolt verifies the signature, and one script
(workers/approvals/decisions.py) loads the click's approval, checks the clicker against the approver
policy (workers/approvals/approvers.py) and records the decision: only a click from the card's own
workspace, channel and message counts, the first click wins, and the click that decides the step's
last pending call queues its resume in the same script. Everything else runs after the ack on the
bot's background pool: the card edit, the "you can't approve this"
or "already decided" notes, and, when the policy needs a directory answer Redis does not hold (a
group's members or a user's admin flag, cached a minute), the Slack lookup and the decision that
follows it. A click on an already decided card changes nothing; if that step's resume was never
enqueued (the bot died right after deciding), it is enqueued then, idempotent by job id.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, assert_never

import redis
from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.middleware import Middleware

from bot.slack import cards as approval_cards
from bot.slack.deps import Deps
from bot.slack.ephemeral import tell
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION
from workers.approvals import decisions, ledger
from workers.approvals import records as approvals
from workers.approvals.approvers import Directory, Policy, SlackDirectory, standing
from workers.approvals.decisions import Decided, Misplaced, Missing, Refused, Stale, Unsettled
from workers.approvals.place import Place
from workers.approvals.records import Decision
from workers.messages.ephemeral import AlreadyDecided, Elsewhere, Gone, NotAllowed, Unrecorded
from workers.runs.job_hash import JobTemplate
from workers.runs.queueing import resume_if_waiting
from workers.runs.triage_record import is_triage

log = logging.getLogger("atlas.bot.slack.approvals")


def register(app: App, deps: Deps) -> tuple[Policy, Directory]:
    """Wire both buttons with the approver policy read from settings (and Slack's directory, cached in Redis);
    returns them for the other controls of a card (bot/slack/app.py wires the triage card's)."""
    policy, directory = Policy.from_settings(deps.settings), SlackDirectory(deps.client, deps.redis)
    app.use(ApprovalClicks(deps, policy, directory))
    return policy, directory


DECISIONS: dict[str, Decision] = {APPROVE_ACTION: "approved", DENY_ACTION: "denied"}


class ApprovalClicks(Middleware):
    """A global middleware that answers Approve and Deny clicks; every other request passes at once.

    Why not `app.action(...)`: Bolt tries its listeners' matchers one by one, each with keyword
    injection (about 45 us apiece), and these buttons' listeners came last, behind every mention,
    command and feedback listener: about 0.4 ms of a click's 1 ms of CPU before its ack. Bolt matches an
    action by the first of `actions`, as this does.
    """

    def __init__(self, deps: Deps, policy: Policy, directory: Directory) -> None:
        self.deps, self.policy, self.directory = deps, policy, directory
        # the step's resume, queued by the decision that closes it (no Redis call to build)
        self.resume_job = JobTemplate.build(
            deps.redis, deps.settings.queue_name, slack_outage_seconds=deps.settings.slack_outage_seconds
        )

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        action = _first_action(req.body)
        decision = DECISIONS.get(str(action.get("action_id"))) if action is not None else None
        if action is None or decision is None:
            return next()
        return self.click(req.body, action, decision)

    def click(self, body: dict[str, Any], action: dict[str, Any], decision: Decision) -> BoltResponse:
        """Decide (one Redis round trip), answer Slack, and leave the rest to the pool."""
        deps, policy, directory = self.deps, self.policy, self.directory
        user = body.get("user") or {}
        clicker = Clicker(body, str(user.get("id") or ""), str(user.get("username") or user.get("name") or ""))
        pending_id = str(action.get("value") or "")
        if not pending_id:
            return _after(deps, _follow_up, deps, clicker, decisions.Missing(), decision, policy, directory)
        try:
            found = decisions.decide(
                deps.redis,
                pending_id,
                decision,
                clicker.id,
                clicker.name,
                standing(clicker.id, policy),
                place=clicker.place,
                resume=self.resume_job,
            )
        except redis.RedisError as exc:
            log.warning("approval click not confirmed: %s", type(exc).__name__)
            return _after(deps, tell, deps, body, clicker.id, Unrecorded(decisions.maybe_recorded(exc)))
        return _after(deps, _follow_up, deps, clicker, found, decision, policy, directory, self.resume_job)


def _first_action(body: dict[str, Any]) -> dict[str, Any] | None:
    """The clicked element of a block_actions request (Bolt matches on the first too), else None."""
    actions = body.get("actions") if body.get("type") == "block_actions" else None
    return actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], dict) else None


@dataclass(frozen=True)
class Clicker:
    """Who clicked, and the click's request body (where the card and its channel are)."""

    body: dict[str, Any]
    id: str
    name: str

    @property
    def place(self) -> Place:
        """Where the click came from, as Slack's signed payload says: an approval is decided only on its card."""
        body = self.body
        container, team = body.get("container") or {}, body.get("team") or {}
        return Place(
            platform="slack",
            team=str(team.get("id") or (body.get("user") or {}).get("team_id") or ""),
            channel=str(container.get("channel_id") or (body.get("channel") or {}).get("id") or ""),
            message=str(container.get("message_ts") or (body.get("message") or {}).get("ts") or ""),
        )


def _after(deps: Deps, work: Callable[..., None], *args: Any) -> BoltResponse:
    """Slack's answer now; `work` on the background pool, its failures logged, never the clicker's problem."""

    def run() -> None:
        try:
            work(*args)
        except Exception:
            log.exception("after an approval click: %s failed", getattr(work, "__name__", "work"))

    deps.background.submit(run)
    return BoltResponse(status=200, body="")


def _follow_up(
    deps: Deps,
    clicker: Clicker,
    found: decisions.Outcome,
    decision: Decision,
    policy: Policy,
    directory: Directory,
    resume_job: JobTemplate | None = None,
) -> None:
    """After the ack: settle a right the cache could not, then edit the card (the closing decision
    queued the resume itself), or tell the clicker why not."""
    body, user_id = clicker.body, clicker.id
    if isinstance(found, Unsettled):
        try:
            found = decisions.settle(
                deps.redis,
                found,
                decision,
                user_id,
                clicker.name,
                policy,
                directory,
                place=clicker.place,
                resume=resume_job,
            )
        except redis.RedisError as exc:
            log.warning("approval click not confirmed: %s", type(exc).__name__)
            tell(deps, body, user_id, Unrecorded(decisions.maybe_recorded(exc)))
            return
    match found:
        case Decided(approval=approval, step_complete=step_complete, resume_queued=queued):
            if step_complete and not queued:
                try:
                    _resume(deps, approval)
                except redis.RedisError as exc:  # the decision stands; a later click on the card repairs it
                    log.warning("resume of %s not enqueued: %s", approval.run_id, type(exc).__name__)
            _edit_card(deps, body, approval)
        case Misplaced():
            log.warning(
                "click by %s on %s refused: not from the card's workspace, channel or message",
                user_id,
                str((body.get("actions") or [{}])[0].get("value") or "")[:80],
            )
            tell(deps, body, user_id, Elsewhere())
        case Stale(approval=approval):
            _already_decided(deps, body, user_id, approval)
        case Refused(approval=approval):
            log.info("click by %s on %s refused: not an approver", user_id, approval.pending_id)
            tell(deps, body, user_id, NotAllowed())
        case Missing():
            tell(deps, body, user_id, Gone())
        case Unsettled():  # settle never answers this
            tell(deps, body, user_id, NotAllowed())
        case _:
            assert_never(found)


def _already_decided(deps: Deps, body: dict[str, Any], user_id: str, stale: approvals.Approval) -> None:
    """Tell the clicker the outcome; repair a resume lost between deciding and enqueueing (when the step
    was closed but its resume job is not there)."""
    tell(deps, body, user_id, AlreadyDecided(approval_cards.decision_of(stale)))
    try:
        if decisions.resume_lost(deps.redis, stale):
            _resume(deps, stale)
    except redis.RedisError as exc:
        log.warning("resume repair of %s not enqueued: %s", stale.run_id, type(exc).__name__)
        tell(deps, body, user_id, Unrecorded())


def _resume(deps: Deps, approval: approvals.Approval) -> None:
    """Enqueue the paused run's resume if it is still waiting on this step (idempotent by job id)."""
    resume_if_waiting(
        deps.redis,
        deps.settings.queue_name,
        approval.run_id,
        approval.step,
        slack_outage_seconds=deps.settings.slack_outage_seconds,
    )


def _edit_card(deps: Deps, body: dict[str, Any], approval: approvals.Approval) -> None:
    if is_triage(approval.pending_id):
        return  # a triage card has several actions: its run's resume re-renders it whole
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    ts = container.get("message_ts") or (body.get("message") or {}).get("ts")
    shown = (body.get("message") or {}).get("blocks") or []
    # The closing decision queued the resume before this edit, so a quick worker may run the call and show its result
    # on the card first. A worker records the result before it edits the card: one recorded before this edit is shown
    # by it, and one recorded while it was sent is shown again after it (one recorded later: the worker's own edit).
    done = _recorded(deps, approval)
    approval_cards.update(deps.client, approval, shown=shown, channel=channel, ts=ts, **done)
    if not done:
        done = _recorded(deps, approval)
        if done:
            approval_cards.update(deps.client, approval, shown=shown, channel=channel, ts=ts, **done)


def _recorded(deps: Deps, approval: approvals.Approval) -> dict[str, Any]:
    return ledger.shown_result(deps.redis, approval.run_id, approval.call_id)
