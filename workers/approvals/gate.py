"""The approval gate, worker side: a paused step's approvals are opened, and a resumed step's decided
calls become outputs. Approval is a pause, not a wait: no worker holds a run while humans decide.

Resume, for each pending call in the order the model made them:
- approved: run it through the idempotency ledger, so it runs at most once per (run, call_id)
  whatever happens to jobs and workers; a call claimed before but never recorded is in doubt:
  not run again, reported in the thread and to the model; unless the ledger shows it was never sent
  (a tracker that guards its sends marks the claim sent in its write turn): then it is resumed;
- denied: the error output `Error: declined by @name`, which the model can answer to;
- expired: an error output, and the run then ends with a partial answer.
One `function_call_output` is appended per pending call, `run.pending` is cleared, and the loop
continues within the budgets the run already carries.
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, assert_never

from rq import Queue

from tools import send_guard
from tools.context import ToolContext
from tools.dispatch import ToolOutput, execute, validate
from tools.errors import for_people
from workers.agent.events import Finished, InDoubt, Paused
from workers.agent.instructions import DECLINED, EXPIRED, IN_DOUBT, IN_DOUBT_UNCONFIRMED, MISSING
from workers.agent.loop import Agent
from workers.agent.ports import Reporter
from workers.approvals import audit, ledger
from workers.approvals import records as approvals
from workers.approvals.records import Approval
from workers.runs.state import PendingCall, RunState

if TYPE_CHECKING:
    from tools.registry import Registry
    from workers.parts import WorkerParts

log = logging.getLogger("atlas.gate")


def pause(rt: WorkerParts, run: RunState) -> None:
    """Open the paused step's approvals and schedule their expiry (the loop's `on_pause` hook)."""
    if not run.pending:
        return
    step = run.pending[0].step
    approvals.open_step(rt.conn, run, run.pending, rt.settings.approval_ttl_seconds)
    opened = approvals.for_step(rt.conn, run.id, step)
    if opened:
        approvals.schedule_expiry(Queue(rt.settings.queue_name, connection=rt.conn), run.id, step, opened[0].expires_at)


def resume(rt: WorkerParts, run: RunState, reporter: Reporter, agent: Agent) -> bool:
    """Apply a paused step's decisions; True when the loop should continue, False when it must not (yet)."""
    if not run.pending:
        return True
    step = run.pending[0].step
    records = {a.pending_id: a for a in approvals.for_step(rt.conn, run.id, step)}
    if not records:
        # The worker stopped between saving the pause and opening its approvals: open them now.
        agent.keeper.pause(run)  # the job's keeper: not once another job took the run's lease
        reporter.event(run, Paused(tuple(run.pending)))
        return False
    if any(p.pending_id in records and not records[p.pending_id].decided for p in run.pending):
        return False  # an early or duplicate delivery: the last decision enqueues the resume
    ctx = agent.tools.context(run)
    expired = False
    started = time.monotonic()  # running approved calls is working time: it counts toward max_seconds
    for call in run.pending:
        approval = records.get(call.pending_id)
        if approval is None:
            text = MISSING
        elif approval.status == "approved":
            text = run_approved(rt, run, call, approval, reporter, ctx)
        elif approval.status == "denied":
            text = DECLINED.format(name=approval.decider_label)
        else:
            text, expired = EXPIRED, True
        run.items.append({"type": "function_call_output", "call_id": call.call_id, "output": text})
    run.pending = []
    run.status = "running"
    run.seconds_spent += time.monotonic() - started
    if not expired:
        agent.keeper.save(run)
        return True
    # Not saved before the wrap-up: if it fails, a retried job redoes this from the paused state
    # (the ledger hands back recorded outputs) instead of carrying on as if nothing expired.
    agent.wrap_up(run, "approval_expired")
    run.status = "expired"
    agent.keeper.settle(run)
    agent.keeper.save(run)
    reporter.event(run, Finished())
    return False


def run_approved(
    rt: WorkerParts,
    run: RunState,
    call: PendingCall,
    approval: Approval,
    reporter: Reporter,
    ctx: ToolContext,
    registry: Registry | None = None,
) -> str:
    """Execute an approved call through the ledger (at most once per run and call id), audited; returns
    the output the model reads. The triage inbox (workers/new_issues/triage_run.py) runs its approved actions here too;
    `registry`: the tools to run it with when not the worker's (an Undo's, tools/undo_tools.py)."""
    guarded = bool(getattr(ctx.tracker, "guards_sends", False))  # it marks the claim sent in its write turn
    claim = ledger.claim(rt.conn, run.id, call.call_id, sent=not guarded)
    match claim:
        case ledger.AlreadyDone():
            return claim.output
        case ledger.InDoubt():
            log.error(
                "run %s: %s (%s) was claimed by %s and never recorded; not running it again",
                run.id,
                call.name,
                call.call_id,
                claim.claimed_by,
            )
            return _in_doubt(rt, run, call, approval, reporter, IN_DOUBT, "interrupted after approval")
        case ledger.Claimed():
            if claim.resumed:
                log.warning(
                    "run %s: resuming %s (%s): the attempt before stopped before sending it",
                    run.id,
                    call.name,
                    call.call_id,
                )
            return _execute(
                rt, run, call, approval, reporter, ctx, claim.token if guarded else None, registry or rt.registry
            )
        case _:
            assert_never(claim)


def _in_doubt(
    rt: WorkerParts, run: RunState, call: PendingCall, approval: Approval, reporter: Reporter, output: str, why: str
) -> str:
    """A call that may have happened (claimed but never recorded, or sent and not confirmed by the tracker):
    recorded as done if the tracker shows it, else in doubt (reported in the thread and to the model as
    `output`), never run again."""
    found = _settle(rt, run, call)
    if found is not None:  # the tracker shows the write happened: record it, never write again
        ledger.record(rt.conn, run.id, call.call_id, found, True)
        audit.append(
            rt.conn,
            "result",
            run=run.id,
            pending_id=call.pending_id,
            tool=call.name,
            arguments=call.arguments,
            issue=approval.issue,
            requester=approval.requester,
            decider=approval.decider,
            decision="done",
            result=f"{found} (found on the tracker after an interruption)",
        )
        _tell_platform(rt, run, approval, result=ToolOutput(found, True))
        return found
    audit.append(
        rt.conn,
        "result",
        run=run.id,
        pending_id=call.pending_id,
        tool=call.name,
        arguments=call.arguments,
        issue=approval.issue,
        requester=approval.requester,
        decider=approval.decider,
        decision="in_doubt",
        result=f"{why}; may or may not have happened; not retried",
    )
    reporter.event(run, InDoubt(call.pending_id, call.name, call.arguments))
    _tell_platform(rt, run, approval, in_doubt=True)
    ledger.settle_in_doubt(rt.conn, run.id, call.call_id, output)
    return output


def _execute(
    rt: WorkerParts,
    run: RunState,
    call: PendingCall,
    approval: Approval,
    reporter: Reporter,
    ctx: ToolContext,
    token: str | None,
    registry: Registry,
) -> str:
    """This attempt owns the call: validate it again (the tracker may have changed), run it, record it.
    A write the tracker did not confirm is settled from the tracker like an interrupted one. With `token`
    the tracker marks the claim sent right before its request leaves; an attempt that lost the claim to
    another meanwhile sends nothing and records nothing."""
    lost = False

    def owns() -> bool:
        nonlocal lost
        lost = token is not None and not ledger.mark_sent(rt.conn, run.id, call.call_id, token)
        return not lost

    with send_guard.guarding(owns) if token is not None else nullcontext():
        checked = validate(registry, call.name, call.arguments, replace(ctx, proposed_at=approval.created_at or None))
        if isinstance(checked, ToolOutput):
            output = checked
        else:
            output = execute(registry, call.name, checked, replace(ctx, call_id=call.call_id))
    if lost:
        log.warning(
            "run %s: %s (%s) was taken over by another attempt; this one sent nothing", run.id, call.name, call.call_id
        )
        return output.text
    if output.in_doubt:
        log.warning(
            "run %s: %s (%s) was sent but not confirmed by the tracker; settling it", run.id, call.name, call.call_id
        )
        return _in_doubt(
            rt, run, call, approval, reporter, IN_DOUBT_UNCONFIRMED, "sent, the tracker did not confirm it"
        )
    ledger.record(rt.conn, run.id, call.call_id, output.text, output.ok)
    audit.append(
        rt.conn,
        "result",
        run=run.id,
        pending_id=call.pending_id,
        tool=call.name,
        arguments=call.arguments,
        issue=approval.issue,
        requester=approval.requester,
        decider=approval.decider,
        decision="done" if output.ok else "failed",
        result=output.text,
    )
    _tell_platform(rt, run, approval, result=output)
    return output.text


def _settle(rt: WorkerParts, run: RunState, call: PendingCall) -> str | None:
    """Ask the tracker whether an in-doubt call's write is there (a marker, a state); None when unsure."""
    try:
        arguments = json.loads(call.arguments) if isinstance(call.arguments, str) else dict(call.arguments)
        repo = arguments.get("repo")  # one of several repositories (tools/repo_scope.py): settled on its tracker
        pick = getattr(rt, "repo_tracker", None)
        tracker = pick(repo) if isinstance(repo, str) and pick is not None else rt.tracker
        return tracker.settle(call.name, arguments, f"{run.id}.{call.call_id}")
    except Exception:  # unreachable tracker, odd arguments: stay in doubt, a human checks
        log.warning("run %s: could not settle %s (%s) with the tracker", run.id, call.name, call.call_id, exc_info=True)
        return None


def _tell_platform(
    rt: WorkerParts, run: RunState, approval: Approval, *, result: ToolOutput | None = None, in_doubt: bool = False
) -> None:
    """Edit the card with the result; for an in-doubt call also say so in the thread (on the run's own
    chat platform). Never fails the run."""
    platform = rt.platform_for(run.origin.kind)
    if platform is None:
        return
    try:
        platform.card_decided(
            approval,
            result=for_people(result.text) if result else None,
            ok=bool(result and result.ok),
            in_doubt=in_doubt,
        )
        if in_doubt:
            platform.notice_in_doubt(run, approval, _issue_url(rt, approval))
    except Exception:
        log.exception("run %s: could not report %s to %s", run.id, approval.pending_id, run.origin.kind)


def _issue_url(rt: WorkerParts, approval: Approval) -> str | None:
    """The tracker's page of the issue an approval is about, for a human to check by hand."""
    issue = approval.issue or ""
    url = getattr(rt.tracker, "url", None)
    return url(int(issue)) if url is not None and issue.isdigit() else None
