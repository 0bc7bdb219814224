"""A maintainer's choice on a triage card before deciding: some of the offered labels, an edited reply.

The choice becomes the pending call's arguments in Redis (workers/approvals/revisions.py, atomic with
the undecided check), so the card shows, and Approve runs, the approval's arguments; the run record
keeps what was offered (`TriageAction.arguments`) until the decision.
"""

from __future__ import annotations

import json
from typing import Any

import redis

from tools.mentions import neutralise
from workers.approvals import records as approvals
from workers.runs.state import RunState
from workers.runs.triage_record import TriageAction, TriageRecord

REPLY_MAX_CHARS = 3000  # what Slack's text input takes (Discord's takes 4,000); GitHub takes 65,536


def current(conn: redis.Redis, run: RunState) -> dict[str, dict[str, Any]]:
    """Each pending call's arguments as they stand (call id -> arguments): what Approve would run now."""
    found: dict[str, dict[str, Any]] = {}
    for call in run.pending:
        approval = approvals.load(conn, call.pending_id)
        if approval is not None:
            found[call.call_id] = json.loads(approval.arguments)
    return found


def action_of(run: RunState, pending_id: str) -> TriageAction | None:
    """The pending triage action a card control names, if it is still waiting."""
    record = run.triage
    call = next((p for p in run.pending if p.pending_id == pending_id), None)
    if record is None or call is None:
        return None
    return next((a for a in record.actions if a.call_id == call.call_id), None)


def labels(action: TriageAction, selected: list[str]) -> str | None:
    """The arguments for the chosen labels: only offered ones, in the card's order; None when none is left
    (Reject says that)."""
    if action.tool != "add_labels":
        return None
    chosen = [n for n in action.arguments.get("labels") or [] if n in set(selected)]
    return json.dumps({**action.arguments, "labels": chosen}) if chosen else None


def reply(action: TriageAction, body: str) -> str | None:
    """The arguments for an edited reply; None when it is empty or too long."""
    if action.tool != "post_comment" or not body.strip() or len(body) > REPLY_MAX_CHARS:
        return None
    return json.dumps({**action.arguments, "body": neutralise(body)})  # the card shows it as posted: no live @mention


def shown(
    run: RunState, record: TriageRecord, current: dict[str, dict[str, Any]]
) -> list[tuple[TriageAction, TriageAction, str | None]]:
    """The actions a card shows, on every platform: each as recorded, as chosen so far (its pending arguments),
    and its pending id while it can still be decided (None once decided or superseded). Shadow actions are left out."""
    pending = {p.call_id: p.pending_id for p in run.pending}
    out: list[tuple[TriageAction, TriageAction, str | None]] = []
    for action in record.actions:
        if action.mode == "shadow":
            continue
        pid = pending.get(action.call_id) if not record.superseded or action.kind == "undo" else None
        chosen = (
            action.model_copy(update={"arguments": current[action.call_id]})
            if pid and action.call_id in current
            else action
        )
        out.append((action, chosen, pid))
    return out
