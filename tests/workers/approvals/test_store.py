"""Approval records: the first decision wins, exactly one caller closes a step, expiry, audit, ledger."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import redis

from workers.approvals import audit, decisions, ledger
from workers.approvals import records as approvals
from workers.approvals.approvers import Policy, may_decide
from workers.approvals.decisions import Decided, Missing, Stale
from workers.runs.state import Origin, PendingCall, RunState


def paused_run(conn: redis.Redis, calls: int = 1, ttl: int = 3600, step: int = 2) -> tuple[RunState, list[PendingCall]]:
    run = RunState(question="triage #3", origin=Origin(kind="slack", user="UASKER", channel="C1", thread_ts="1.0"))
    pending = [
        PendingCall(
            pending_id=f"{run.id}.call_{i}",
            call_id=f"call_{i}",
            name="add_labels",
            arguments=json.dumps({"issue_id": 3, "labels": ["bug"]}),
            step=step,
        )
        for i in range(calls)
    ]
    assert approvals.open_step(conn, run, pending, ttl)
    return run, pending


def test_open_is_idempotent_and_audited(redis_conn: redis.Redis) -> None:
    run, pending = paused_run(redis_conn, calls=2)
    assert not approvals.open_step(redis_conn, run, pending, 3600)
    found = approvals.for_step(redis_conn, run.id, 2)
    assert [a.call_id for a in found] == ["call_0", "call_1"]
    assert all(a.status == "pending" and a.requester == "UASKER" and a.issue == "3" for a in found)
    assert found[0].expires_at - found[0].created_at == 3600
    entries = audit.entries(redis_conn)
    assert [e.kind for e in entries] == ["request", "request"]
    assert entries[0].get("tool") == "add_labels" and entries[0].get("requester") == "UASKER"


def test_the_first_decision_wins_and_later_ones_change_nothing(redis_conn: redis.Redis) -> None:
    _, (call,) = paused_run(redis_conn)
    first = decisions.decide(redis_conn, call.pending_id, "approved", "UMAINT", "maint")
    assert isinstance(first, Decided) and first.step_complete
    for decision, who in (("denied", "UOTHER"), ("approved", "UMAINT")):
        again = decisions.decide(redis_conn, call.pending_id, decision, who)
        assert isinstance(again, Stale)
        assert (again.approval.status, again.approval.decider) == ("approved", "UMAINT")
    assert isinstance(decisions.decide(redis_conn, "nope.call", "approved", "U"), Missing)
    assert [e.get("decision") for e in audit.entries(redis_conn) if e.kind == "decision"] == ["approved"]


def test_concurrent_clicks_close_the_step_exactly_once(redis_conn: redis.Redis) -> None:
    run, pending = paused_run(redis_conn, calls=3)
    clicks = [(p.pending_id, d, u) for p in pending for d, u in (("approved", "UA"), ("denied", "UB"))] * 4
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(
            pool.map(lambda c: decisions.decide(redis.Redis(connection_pool=redis_conn.connection_pool), *c), clicks)
        )
    decided = [r for r in results if isinstance(r, Decided)]
    assert len(decided) == 3 and sorted(r.approval.pending_id for r in decided) == sorted(p.pending_id for p in pending)
    assert sum(r.step_complete for r in decided) == 1
    assert approvals.step_complete(redis_conn, run.id, 2)


def test_expiry_expires_only_undecided_calls_and_closes_the_step_once(redis_conn: redis.Redis) -> None:
    run, pending = paused_run(redis_conn, calls=2)
    decisions.decide(redis_conn, pending[0].pending_id, "denied", "UASKER")
    expired, closed = approvals.expire_step(redis_conn, run.id, 2)
    assert [a.call_id for a in expired] == ["call_1"] and closed
    assert approvals.expire_step(redis_conn, run.id, 2) == ([], False)
    late = decisions.decide(redis_conn, pending[1].pending_id, "approved", "UASKER")
    assert isinstance(late, Stale) and late.approval.status == "expired"


def test_a_click_after_the_deadline_is_stale_even_before_the_expiry_job(redis_conn: redis.Redis) -> None:
    _, (call,) = paused_run(redis_conn, ttl=0)
    result = decisions.decide(redis_conn, call.pending_id, "approved", "UASKER")
    assert isinstance(result, Stale) and result.approval.status == "pending"


def test_the_ledger_claims_once_and_reports_a_claim_without_output(redis_conn: redis.Redis) -> None:
    assert isinstance(ledger.claim(redis_conn, "r", "c1"), ledger.Claimed)
    assert isinstance(ledger.claim(redis_conn, "r", "c1"), ledger.InDoubt)
    ledger.record(redis_conn, "r", "c1", "Labeled #3", True)
    assert ledger.claim(redis_conn, "r", "c1") == ledger.AlreadyDone("Labeled #3", True)
    with ThreadPoolExecutor(max_workers=8) as pool:
        claims = list(
            pool.map(
                lambda _: ledger.claim(redis.Redis(connection_pool=redis_conn.connection_pool), "r", "c2"), range(16)
            )
        )
    assert sum(isinstance(c, ledger.Claimed) for c in claims) == 1
    ledger.settle_in_doubt(redis_conn, "r", "c2", "Error: may have run")
    assert ledger.claim(redis_conn, "r", "c2") == ledger.AlreadyDone("Error: may have run", False)


class FakeDirectory:
    """A directory with one admin and one group, counting lookups."""

    def __init__(self) -> None:
        self.lookups: list[str] = []

    def members(self, group: str) -> frozenset[str]:
        self.lookups.append(group)
        return frozenset({"UGROUP"}) if group == "S1" else frozenset()

    def is_admin(self, user: str) -> bool:
        self.lookups.append(user)
        return user == "UADMIN"


def test_only_maintainers_approve_and_the_asker_only_as_one() -> None:
    directory = FakeDirectory()
    configured = Policy(approvers=frozenset({"UMAINT"}), group="S1")
    assert not may_decide("UASKER", "UASKER", configured, directory)
    assert may_decide("UMAINT", "UASKER", configured, directory)
    assert may_decide("UGROUP", "UASKER", configured, directory)
    assert not may_decide("UADMIN", "UASKER", configured, directory)  # configured approvers replace the admins
    assert not may_decide("URANDOM", "UASKER", configured, directory)
    assert may_decide("UMAINT", "UMAINT", configured, directory)  # an asker who is a maintainer
    assert may_decide("UASKER", "UASKER", Policy(asker_may_approve=True), directory)  # the opt-in
    unconfigured = Policy()
    assert may_decide("UADMIN", "UASKER", unconfigured, directory)
    assert not may_decide("UASKER", "UASKER", unconfigured, directory)
    assert not may_decide("", "", unconfigured, directory)
    assert not may_decide("UADMIN", "UASKER", unconfigured, None)


def test_audit_filters_newest_first(redis_conn: redis.Redis) -> None:
    audit.append(
        redis_conn, "request", run="r1", tool="post_comment", arguments='{"issue_id": 5}', issue="5", requester="UA"
    )
    audit.append(
        redis_conn,
        "decision",
        run="r1",
        tool="post_comment",
        issue="5",
        requester="UA",
        decider="UB",
        decision="approved",
    )
    audit.append(redis_conn, "request", run="r2", tool="add_labels", issue="6", requester="UC")
    assert [e.get("run") for e in audit.entries(redis_conn)] == ["r2", "r1", "r1"]
    assert [e.kind for e in audit.entries(redis_conn, issue=5)] == ["decision", "request"]
    assert [e.kind for e in audit.entries(redis_conn, user="UB")] == ["decision"]
    assert len(audit.entries(redis_conn, limit=1, batch=1)) == 1
    assert len(audit.entries(redis_conn, issue=5, batch=1)) == 2
    assert "approved by UB" in audit.render(audit.entries(redis_conn, user="UB"))


def test_atlas_audit_lists_newest_first_and_filters(redis_conn: redis.Redis, atlas_env: dict[str, str]) -> None:
    from tests.support.processes import atlas_command

    audit.append(
        redis_conn, "request", run="r1", tool="close_issue", arguments='{"issue_id": 5}', issue="5", requester="UA"
    )
    audit.append(
        redis_conn,
        "decision",
        run="r1",
        tool="close_issue",
        arguments='{"issue_id": 5}',
        issue="5",
        requester="UA",
        decider="UB",
        decision="denied",
    )
    audit.append(
        redis_conn, "request", run="r2", tool="add_labels", arguments='{"issue_id": 6}', issue="6", requester="UC"
    )
    lines = atlas_command("audit", env=atlas_env).stdout.splitlines()
    assert [line.split()[4] for line in lines] == ["r2", "r1", "r1"]
    assert "denied by UB" in lines[1]
    by_issue = json.loads(atlas_command("audit", "--issue", "5", "--json", env=atlas_env).stdout)
    assert [(e["kind"], e["run"]) for e in by_issue] == [("decision", "r1"), ("request", "r1")]
    by_user = json.loads(atlas_command("audit", "--user", "UC", "--json", env=atlas_env).stdout)
    assert [e["tool"] for e in by_user] == ["add_labels"]
