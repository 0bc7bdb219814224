"""Changing what an undecided call would do, before anyone decides it (the triage card's label choice and
reply edit, issue 24 item 2).

The new arguments replace the approval's own (the ones Approve runs: workers/new_issues/triage_run.py reads them
from the approval once it is decided) in one script with the same checks as a decision
(workers/approvals/decisions.py): the click's place, the approver policy, and the call still pending and
unexpired. So a change and a decision are ordered on the server: Approve runs exactly the arguments
recorded before it, and a change after the decision changes nothing. What may be chosen (a subset of the
offered labels, a reply's length) is the caller's check; this module only records it.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from workers.approvals.approvers import Directory, Policy, Standing, may_decide
from workers.approvals.decisions import (
    LUA_LOAD,
    LUA_REFUSAL,
    Misplaced,
    Missing,
    Refused,
    Stale,
    Unsettled,
    not_done,
    run_checked,
)
from workers.approvals.place import LUA_MISPLACED, Place
from workers.approvals.records import LUA_AUDIT, LUA_NOW, Approval

# KEYS and ARGV as the decision script's (ARGV[1]: the new arguments JSON; ARGV[7] unused).
_REVISE = (
    LUA_NOW
    + LUA_AUDIT
    + LUA_MISPLACED
    + LUA_REFUSAL
    + LUA_LOAD
    + """
if f['status'] ~= 'pending' or now >= tonumber(f['expires_at']) then return {'stale', raw} end
redis.call('HSET', KEYS[1], 'arguments', ARGV[1], 'revision', tostring(tonumber(f['revision'] or '0') + 1))
adopt(KEYS[1], f, 7)
audit(KEYS[1], 'revision', {'decider', user})
return {'revised', redis.call('HGETALL', KEYS[1])}
"""
)


@dataclass(frozen=True)
class Revised:
    """The call's arguments are now the new ones (`approval` as the script left it)."""

    approval: Approval


Outcome = Revised | Stale | Missing | Misplaced | Refused | Unsettled


def revise(
    conn: redis.Redis, pending_id: str, arguments: str, user: str, name: str, standing: Standing, *, place: Place
) -> Outcome:
    """Replace an undecided call's arguments for `user`, if the policy lets them decide it, in one round trip."""
    outcome, approval, _ = run_checked(conn, _REVISE, pending_id, arguments, user, name, standing, place, [], [])
    if outcome == "revised" and approval is not None:
        return Revised(approval)
    return not_done(outcome, approval)


def settle(
    conn: redis.Redis,
    unsettled: Unsettled,
    arguments: str,
    user: str,
    name: str,
    policy: Policy,
    directory: Directory,
    *,
    place: Place,
) -> Outcome:
    """After `Unsettled`: ask the directory (a failed lookup grants nothing), then revise with the right settled."""
    if not may_decide(user, unsettled.approval.requester, policy, directory):
        return Refused(unsettled.approval)
    found = revise(conn, unsettled.approval.pending_id, arguments, user, name, Standing.known(user, True), place=place)
    return Refused(found.approval) if isinstance(found, Unsettled) else found
