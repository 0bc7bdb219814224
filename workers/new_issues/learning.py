"""Every maintainers' decision about triage becomes an outcome (workers/triage/outcomes.py), issue 36 item 4.

From the card: an approved or rejected duplicate claim; each offered label, kept (accepted) or dropped or
rejected (not); a reply posted as drafted (accepted) or edited first or rejected (not). An expiry says nothing.
From GitHub, after triage: a label a person (never a bot, never Atlas's own approved write) adds or removes;
from any issue, a duplicate closed by hand; and an issue Atlas closed as a duplicate that is reopened (its claim
was false). Each is recorded once by what caused it (the approval, or the delivery and what it names).
"""

from __future__ import annotations

import json
from typing import Any

import redis

from workers.approvals.records import Approval
from workers.new_issues import claim
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageAction, TriageRecord
from workers.triage import outcomes
from workers.triage.outcomes import Outcome


def card_decision(
    conn: redis.Redis, record: TriageRecord, action: TriageAction, approval: Approval, queue: str | None = None
) -> int:
    """The outcomes of one decided card action (`action.arguments`: what was offered); how many were new.
    `queue`: the worker's, where the DECISIONS_EVERY-th decision queues a recalibration (outcomes.record)."""
    if approval.status not in ("approved", "denied") or action.mode == "auto" or record.proposal is not None:
        return 0  # an expiry decides nothing; an auto label was nobody's decision; an MCP proposal is not Atlas's claim
    approved = approval.status == "approved"
    chosen: dict[str, Any] = json.loads(approval.arguments) if approved else {}
    found: list[tuple[outcomes.Kind, str, bool]] = []
    if action.tool == "close_issue":
        found.append(("duplicate", str(action.arguments.get("duplicate_of")), approved))
    elif action.tool == "add_labels":
        kept = set(chosen.get("labels") or [])
        found += [("label", str(name), name in kept) for name in action.arguments.get("labels") or []]
    elif action.tool == "post_comment":
        as_drafted = approved and str(chosen.get("body")) == str(action.arguments.get("body"))
        found.append(("reply", "as drafted" if as_drafted else ("edited" if approved else "rejected"), as_drafted))
    at = outcomes.now()
    return sum(
        outcomes.record(
            conn,
            record.repo,
            Outcome(record.issue, kind, value, accepted, "card", at),
            f"card:{approval.pending_id}:{kind}:{value}",
            queue,
        )
        for kind, value, accepted in found
    )


def is_bot(payload: dict[str, Any]) -> bool:
    """Whether GitHub says the delivery's sender is a bot (an App, a labeler action, a stale bot)."""
    sender = payload.get("sender")
    return isinstance(sender, dict) and str(sender.get("type") or "") == "Bot"


def on_event(
    conn: redis.Redis,
    repo: str,
    event: str,
    action: str,
    payload: dict[str, Any],
    delivery: str,
    original: int | None = None,
    queue: str | None = None,
) -> str:
    """The outcome a webhook delivery carries, if any ('' when none): a short note for the job's result.
    `original`: for a duplicate closed by hand, the original the synced store knows, else the one GitHub's
    timeline names (workers/followup/marked_duplicate.py); None: unknown. `queue`: as for card_decision."""
    issue = payload.get("issue")
    if (
        event != "issues"
        or not isinstance(issue, dict)
        or "pull_request" in issue
        or not isinstance(issue.get("number"), int)
    ):
        return ""
    if is_bot(payload):
        return ""
    number = int(issue["number"])
    run = _run_of(conn, repo, number)
    atlas_closed = run is not None and _atlas_did(run, "close_issue")
    if action in ("labeled", "unlabeled"):
        name = str((payload.get("label") or {}).get("name") or "")
        if not name or run is None or (action == "labeled" and _atlas_applied(run, name)):
            return ""  # only after triage, and never Atlas's own approved label arriving back
        outcome = Outcome(number, "label", name, action == "labeled", "maintainer", outcomes.now())
        return _note(conn, repo, outcome, f"hook:{delivery}:{action}:{name}", queue)
    if action == "closed" and issue.get("state_reason") == "duplicate" and not atlas_closed:
        claimed = _claimed(run)
        value = str(original) if original else ""  # a duplicate, of an original the store does not know
        note = _note(
            conn,
            repo,
            Outcome(number, "duplicate", value, True, "maintainer", outcomes.now()),
            f"hook:{delivery}:closed",
            queue,
        )
        if (
            claimed and original and claimed != str(original)
        ):  # closed as a duplicate of another issue: the claim was false
            note += _note(
                conn,
                repo,
                Outcome(number, "duplicate", claimed, False, "maintainer", outcomes.now()),
                f"hook:{delivery}:closed-other",
                queue,
            )
        return note
    if action == "reopened" and atlas_closed and run is not None:
        outcome = Outcome(number, "duplicate", _claimed(run), False, "reopened", outcomes.now())
        return _note(conn, repo, outcome, f"hook:{delivery}:reopened", queue)
    return ""


def _note(conn: redis.Redis, repo: str, outcome: Outcome, key: str, queue: str | None) -> str:
    new = outcomes.record(conn, repo, outcome, key, queue)
    verdict = "accepted" if outcome.accepted else "refused"
    return f"; outcome {outcome.kind} {outcome.value or '?'} {verdict} ({outcome.source})" if new else ""


def _run_of(conn: redis.Redis, repo: str, number: int) -> TriageRecord | None:
    run_id = claim.run_of(conn, repo, number)
    if run_id is None:
        return None
    try:
        return RunStore(conn).load(run_id).triage
    except Exception:  # a run record past its 30 days: the claim outlives it
        return None


def _atlas_did(record: TriageRecord, tool: str) -> bool:
    return any(a.tool == tool and a.status in ("approved", "done", "in_doubt") for a in record.actions)


def _atlas_applied(record: TriageRecord, name: str) -> bool:
    return any(
        a.tool == "add_labels"
        and a.status in ("approved", "done", "in_doubt", "auto")
        and name in (a.arguments.get("labels") or [])
        for a in record.actions
    )


def _claimed(record: TriageRecord | None) -> str:
    """The original the card claimed ('' when it made no duplicate claim)."""
    dup = next((a for a in record.actions if a.tool == "close_issue"), None) if record is not None else None
    return str(dup.arguments.get("duplicate_of") or "") if dup is not None else ""
