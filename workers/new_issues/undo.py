"""The Undo of a triage card (issue 36 item 5): for 7 days after Atlas closed the issue as a duplicate or added
labels, the card offers one approved action that reopens the issue (if Atlas closed it), removes the labels Atlas
added and says so in a short comment.

The Undo is an ordinary pending call of the run (its own step), opened once nothing else on the card waits, so
its click is decided like every other (where the card lives, by an approver, the first click wins) and it runs
through the gate's ledger (each of its writes at most once, whatever retries a job makes). It expires after
`UNDO_SECONDS` by the ordinary expiry job; the card then drops the button, and a late click is told it expired.
An applied Undo is recorded as the maintainers' verdict (workers/triage/outcomes.py, source `undo`): the claim
and each removed label were false, and `atlas triage report` counts them so.
"""

from __future__ import annotations

import json

from rq import Queue

from workers.approvals import records as approvals
from workers.approvals.records import Approval
from workers.new_issues import actions as triage_actions
from workers.new_issues import wording
from workers.parts import WorkerParts
from workers.runs.state import PendingCall, RunState
from workers.runs.triage_record import CALL_PREFIX, TriageAction, TriageRecord
from workers.triage import outcomes
from workers.triage.outcomes import Outcome

TOOL = "undo_triage"  # the Undo's approval; what runs are reopen_issue, remove_labels and post_comment
CALL_ID = f"{CALL_PREFIX}undo"
STEP = 9  # after the card's own steps (workers/new_issues/actions.STEPS)
UNDO_SECONDS = 7 * 24 * 3600


def done(record: TriageRecord) -> tuple[TriageAction | None, list[str]]:
    """What Atlas did on the issue that an Undo takes back: its applied close (None when it did not close it),
    and the labels it added, in card order."""
    closed = next((a for a in record.actions if a.tool == "close_issue" and a.status == "done"), None)
    labels = [
        str(n)
        for a in record.actions
        if a.tool == "add_labels" and a.status == "done"
        for n in a.arguments.get("labels") or []
    ]
    return closed, list(dict.fromkeys(labels))


def offer(rt: WorkerParts, run: RunState, record: TriageRecord, waiting: list[PendingCall]) -> list[PendingCall]:
    """Open the card's Undo once Atlas changed the issue and nothing else on the card waits; the new pending call
    (none when there is nothing to undo, an Undo was offered already, or another action still waits). An action
    proposed over MCP gets none: it was a maintainer's agent's, not Atlas's triage (workers/new_issues/proposals.py)."""
    if waiting or record.proposal is not None or any(a.tool == TOOL for a in record.actions):
        return []
    closed, labels = done(record)
    if closed is None and not labels:
        return []
    original = closed.arguments.get("duplicate_of") if closed is not None else None
    arguments = {"issue_id": record.issue, "reopen": closed is not None, "duplicate_of": original, "labels": labels}
    record.actions.append(
        TriageAction(kind="undo", mode="draft", tool=TOOL, arguments=arguments, call_id=CALL_ID, step=STEP)
    )
    call = PendingCall(
        pending_id=f"{run.id}.{CALL_ID}", call_id=CALL_ID, name=TOOL, arguments=json.dumps(arguments), step=STEP
    )
    approvals.open_step(rt.conn, run, [call], UNDO_SECONDS)  # idempotent: a retried job opens nothing twice
    opened = approvals.for_step(rt.conn, run.id, STEP)
    if opened:
        approvals.schedule_expiry(Queue(rt.settings.queue_name, connection=rt.conn), run.id, STEP, opened[0].expires_at)
    if record.card_ts:  # the card is up: its Undo is decided there only (workers/approvals/place.py)
        approvals.attach_card(rt.conn, call.pending_id, record.card_channel, record.card_ts)
    return [call]


def calls(call: PendingCall, action: TriageAction, who: str, where: str) -> list[PendingCall]:
    """The approved Undo's writes, each its own call id in the ledger: reopen, remove the labels, the comment."""
    args = action.arguments
    number = int(args["issue_id"])
    out: list[PendingCall] = []
    if args.get("reopen"):
        out.append(
            call.model_copy(
                update={
                    "call_id": f"{CALL_ID}.reopen",
                    "name": "reopen_issue",
                    "arguments": json.dumps({"issue_id": number}),
                }
            )
        )
    if args.get("labels"):
        out.append(
            call.model_copy(
                update={
                    "call_id": f"{CALL_ID}.labels",
                    "name": "remove_labels",
                    "arguments": json.dumps({"issue_id": number, "labels": list(args["labels"])}),
                }
            )
        )
    body = f"{wording.undo_comment(args)}\n\n{triage_actions.signature(who, where)}"
    out.append(
        call.model_copy(
            update={
                "call_id": f"{CALL_ID}.comment",
                "name": "post_comment",
                "arguments": json.dumps({"issue_id": number, "body": body}),
            }
        )
    )
    return out


def learn(rt: WorkerParts, record: TriageRecord, action: TriageAction, approval: Approval) -> int:
    """An applied Undo: the duplicate claim and each label it took back were false (source `undo`); how many new.
    An MCP proposal's Undo teaches nothing (it was not Atlas's claim, as in workers/new_issues/learning.py)."""
    if record.proposal is not None:
        return 0
    args = action.arguments
    found: list[tuple[outcomes.Kind, str]] = []
    if args.get("reopen"):
        found.append(("duplicate", str(args.get("duplicate_of") or "")))
    found += [("label", str(name)) for name in args.get("labels") or []]
    at = outcomes.now()
    return sum(
        outcomes.record(
            rt.conn,
            record.repo,
            Outcome(record.issue, kind, value, False, "undo", at),
            f"undo:{approval.pending_id}:{kind}:{value}",
            rt.settings.queue_name,
        )
        for kind, value in found
    )
