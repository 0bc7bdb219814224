"""A triage run's jobs: the first triages the issue and posts its card; each resume applies only the
actions decided since, through the same gate, ledger, audit and place check as every approval.

Suggestions come from the model through its read tools when one is configured, else, or when that fails, from the
offline triage engine (suggesting.py); a resume only runs the approved tool calls. Each drafted action is its own
step with one pending call,
so deciding one never waits for the others. The run ends (`done`) when no action is left pending.
"""

from __future__ import annotations

import json
import logging

from rq import Queue

from tools import open_corpus
from tools.context import ToolContext
from tools.dispatch import ToolOutput, validate
from tools.undo_tools import undo_registry
from workers import settings_check
from workers import wording as phrases
from workers.agent.ports import Reporter
from workers.approvals import gate
from workers.approvals import records as approvals
from workers.approvals.records import Approval
from workers.new_issues import actions as triage_actions
from workers.new_issues import learning, maintainers, suggesting, undo
from workers.parts import WorkerParts
from workers.runs.state import PendingCall, RunState
from workers.runs.triage_record import ActionStatus, TriageAction, TriageRecord

log = logging.getLogger("atlas.new_issues")


def proceed(rt: WorkerParts, run: RunState) -> str:
    """The job of a triage run, whatever brought it: the first triage, a decision, a maintainer acting first."""
    record = run.triage
    assert record is not None
    if run.status == "queued" and settings_check.mismatched(rt, run):
        _refuse(rt, run)
        return run.status
    if run.status == "queued":
        _triage(rt, run, record)
    elif run.status == "awaiting_approval":
        _apply_decided(rt, run, record)
    _show(rt, run)
    return run.status


def _triage(rt: WorkerParts, run: RunState, record: TriageRecord) -> None:
    ctx = ToolContext(
        corpus=open_corpus(rt.settings.data_dir, rt.settings.home, rt.settings.semantic_docs),
        run_id=run.id,
        tracker=rt.tracker,
    )
    if (
        record.proposal is not None
    ):  # proposed over MCP (workers/new_issues/proposals.py): its one action, checked below
        issue = rt.tracker.issue(record.issue)
        if issue is not None:
            record.title, record.url, record.author = (
                issue.title,
                issue.url,
                record.author or suggesting.author(rt, record.issue),
            )
        candidates, record.actions = list(record.actions), []
    else:
        candidates = suggesting.candidates(rt, run, record, ctx)
    drafted: list[TriageAction] = []
    for action in candidates:
        checked = validate(rt.registry, action.tool, json.dumps(action.arguments), ctx)
        if isinstance(checked, ToolOutput):  # the tracker changed (closed, label gone): nothing to propose
            log.info("run %s: triage %s of #%s dropped: %s", run.id, action.kind, record.issue, checked.text)
            record.dropped.append(f"{action.kind}: {checked.text}")
            continue
        record.actions.append(action)
        if action.status == "pending":
            drafted.append(action)
    run.pending = [
        PendingCall(
            pending_id=f"{run.id}.{a.call_id}",
            call_id=a.call_id,
            name=a.tool,
            arguments=json.dumps(a.arguments),
            step=a.step,
        )
        for a in drafted
    ]
    queue = Queue(rt.settings.queue_name, connection=rt.conn)
    for call in run.pending:  # one step per action: each is decided and resumed alone
        approvals.open_step(rt.conn, run, [call], rt.settings.approval_ttl_seconds)
        opened = approvals.for_step(rt.conn, run.id, call.step)
        if opened:
            approvals.schedule_expiry(queue, run.id, call.step, opened[0].expires_at)
    run.answer = _summary(record)
    run.status = "awaiting_approval" if run.pending else "done"
    run.stop_reason = None if run.pending else "done"
    rt.store.save(run)
    for action in [a for a in record.actions if a.mode == "auto"]:  # earned in the backtest: applied unasked
        _auto(rt, run, action)
    _apply_decided(rt, run, record)  # the auto call's step, and a maintainer who acted meanwhile


def _refuse(rt: WorkerParts, run: RunState) -> None:
    """Taken under other settings (another ATLAS_TRIAGE_ACTIONS, channel or model): no card, a failed run that
    says why (`atlas runs show`), and both fingerprints in the log."""
    log.error(
        "triage run %s was started under settings %s, but this worker has %s; not triaging it."
        " Start workers with the same settings as `atlas serve`.",
        run.id,
        run.settings_fingerprint,
        rt.settings.fingerprint,
    )
    run.status, run.stop_reason, run.partial = "failed", "settings_mismatch", True
    run.error = run.answer = phrases.SETTINGS_MISMATCH
    rt.store.save(run)


def _auto(rt: WorkerParts, run: RunState, action: TriageAction) -> None:
    call = PendingCall(
        pending_id=f"{run.id}.{action.call_id}",
        call_id=action.call_id,
        name=action.tool,
        arguments=json.dumps(action.arguments),
        step=action.step,
    )
    run.pending.append(call)
    approvals.open_step(rt.conn, run, [call], rt.settings.approval_ttl_seconds)
    from workers.approvals import decisions

    decisions.decide(rt.conn, call.pending_id, "approved", "atlas-auto", "Atlas (auto: earned in the backtest)")


def _apply_decided(rt: WorkerParts, run: RunState, record: TriageRecord) -> None:
    """Run each decided action once (approved: through the ledger), record its fate, keep the rest pending."""
    platform = rt.platform_for(run.origin.kind)
    reporter = platform if platform is not None else Reporter()
    ctx: ToolContext | None = None
    waiting: list[PendingCall] = []
    why = maintainers.superseded(rt.conn, run.id)
    for call in run.pending:
        approval = approvals.load(rt.conn, call.pending_id)
        action = next((a for a in record.actions if a.call_id == call.call_id), None)
        if approval is None or action is None:
            continue
        if not approval.decided:
            waiting.append(call)
            continue
        action.decider = approval.decider_label if approval.status != "expired" else ""
        learning.card_decision(rt.conn, record, action, approval, rt.settings.queue_name)  # `action.arguments`: offered
        if approval.status == "approved":
            ctx = ctx or ToolContext(
                corpus=open_corpus(rt.settings.data_dir, rt.settings.home, rt.settings.semantic_docs),
                run_id=run.id,
                tracker=rt.tracker,
            )
            action.status, action.result = _run(rt, run, call, approval, action, reporter, ctx)
        else:
            action.status = "superseded" if approval.status == "expired" and why else approval.status
    if why:
        record.superseded = why
    waiting += undo.offer(rt, run, record, waiting)  # once Atlas changed the issue and nothing else waits
    run.pending = waiting
    run.answer = _summary(record)
    if not waiting:
        run.status, run.stop_reason = "done", "done"
    rt.store.save(run)


def _run(
    rt: WorkerParts,
    run: RunState,
    call: PendingCall,
    approval: Approval,
    action: TriageAction,
    reporter: Reporter,
    ctx: ToolContext,
) -> tuple[ActionStatus, str]:
    """The approved call through the gate's ledger (at most once per call id); a duplicate is a comment then the
    close."""
    who, where = approval.decider_label, run.origin.kind
    action.arguments = json.loads(approval.arguments)  # what was chosen before the decision: exactly what runs
    call = call.model_copy(update={"arguments": approval.arguments})
    calls: list[PendingCall] = []
    if action.tool == "close_issue":
        original = int(action.arguments["duplicate_of"])
        chain = (run.triage.suggestions.get("original") if run.triage else None) or {}
        body = triage_actions.duplicate_comment(original, who, where, chain)
        calls.append(
            call.model_copy(
                update={
                    "call_id": f"{call.call_id}.comment",
                    "name": "post_comment",
                    "arguments": json.dumps({"issue_id": action.arguments["issue_id"], "body": body}),
                }
            )
        )
        calls.append(call)
    elif action.tool == undo.TOOL:
        calls += undo.calls(call, action, who, where)
    elif action.tool == "post_comment":
        body = triage_actions.reply_comment(str(action.arguments["body"]), who, where)
        calls.append(call.model_copy(update={"arguments": json.dumps({**action.arguments, "body": body})}))
    else:
        calls.append(call)
    tools = undo_registry(rt.registry) if action.tool == undo.TOOL else None  # its writes are never a model's tools
    outputs = [gate.run_approved(rt, run, c, approval, reporter, ctx, tools) for c in calls]
    failed = [o for o in outputs if o.startswith("Error")]
    if action.tool == undo.TOOL and not failed and run.triage is not None:
        undo.learn(rt, run.triage, action, approval)
    return ("failed" if failed else "done"), "\n".join(outputs)


def _show(rt: WorkerParts, run: RunState) -> None:
    """Post the one card of the issue, or update it in place (shadow-only runs post nothing)."""
    record = run.triage
    if record is None or not any(a.mode != "shadow" for a in record.actions):
        return
    platform = rt.platform_for(run.origin.kind)
    if platform is None:
        log.warning(
            "run %s: the triage channel's platform (%s) is not configured in this worker", run.id, run.origin.kind
        )
        return
    platform.triage_card(run)


def _summary(record: TriageRecord) -> str:
    """The run's answer, for `atlas runs show`: what was suggested and what each action became."""
    s = record.suggestions
    dups = ", ".join(f"#{d['id']} ({d['score']:.2f})" for d in s.get("duplicates", [])) or "none"
    labels = ", ".join(f"{x['name']} ({x['score']:.2f})" for x in s.get("labels", [])) or "none"
    modes = (
        ", ".join(f"{a.kind}: {a.mode}, {a.status}" + (f" by {a.decider}" if a.decider else "") for a in record.actions)
        or "no action"
    )
    dropped = f"; dropped: {'; '.join(record.dropped)}" if record.dropped else ""
    if record.proposal is not None:
        return f"Proposed over MCP by {record.proposal.get('by')} for #{record.issue}: {modes}{dropped}."
    return (
        f"Triage of #{record.issue}: duplicates {dups}; labels {labels}; "
        f"reply {'drafted' if s.get('reply') else 'none'}; {modes}."
    )
