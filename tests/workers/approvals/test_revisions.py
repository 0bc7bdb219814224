"""Changing an undecided call's arguments (a triage card's label choice or edited reply): only an approver,
only from the card's place, only while undecided, ordered with the decision on the server."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import redis

from tests.workers.approvals.test_store import paused_run
from workers.approvals import audit, decisions, revisions
from workers.approvals import records as approvals
from workers.approvals.approvers import Standing, admin_key
from workers.approvals.decisions import Decided, Misplaced, Refused, Stale, Unsettled
from workers.approvals.place import Place

HERE = Place(platform="slack", team="", channel="C1", message="")
KEPT = json.dumps({"issue_id": 3, "labels": ["scheduler"]})


def _arguments(conn: redis.Redis, pending_id: str) -> str:
    found = approvals.load(conn, pending_id)
    assert found is not None
    return found.arguments


def test_only_an_approver_from_the_cards_place_changes_an_undecided_call(redis_conn: redis.Redis) -> None:
    _, (call,) = paused_run(redis_conn)
    approvals.reserve_card(redis_conn, call.pending_id, "C1")
    before = _arguments(redis_conn, call.pending_id)
    assert isinstance(
        revisions.revise(redis_conn, call.pending_id, KEPT, "UOTHER", "other", Standing("UOTHER"), place=HERE), Refused
    )
    elsewhere = Place(platform="slack", team="", channel="C2", message="")
    assert isinstance(
        revisions.revise(
            redis_conn, call.pending_id, KEPT, "UMAINT", "maint", Standing.known("UMAINT", True), place=elsewhere
        ),
        Misplaced,
    )
    admin = Standing("UADMIN", lookup="admin", subject="UADMIN")
    assert isinstance(
        revisions.revise(redis_conn, call.pending_id, KEPT, "UADMIN", "admin", admin, place=HERE), Unsettled
    )
    assert _arguments(redis_conn, call.pending_id) == before
    redis_conn.set(admin_key("UADMIN"), "true")  # the directory's answer, cached: the same rule as Approve's
    revised = revisions.revise(redis_conn, call.pending_id, KEPT, "UADMIN", "admin", admin, place=HERE)
    assert (
        isinstance(revised, revisions.Revised) and revised.approval.arguments == KEPT and revised.approval.revision == 1
    )
    assert [e.get("decider") for e in audit.entries(redis_conn) if e.kind == "revision"] == ["UADMIN"]


def test_a_change_after_the_decision_changes_nothing_and_a_race_runs_what_was_recorded_first(
    redis_conn: redis.Redis,
) -> None:
    _, (call,) = paused_run(redis_conn)
    approvals.reserve_card(redis_conn, call.pending_id, "C1")
    maint = Standing.known("UMAINT", True)
    decided = decisions.decide(redis_conn, call.pending_id, "approved", "UMAINT", "maint", maint, place=HERE)
    assert isinstance(decided, Decided)
    late = revisions.revise(redis_conn, call.pending_id, KEPT, "UMAINT", "maint", maint, place=HERE)
    assert isinstance(late, Stale) and _arguments(redis_conn, call.pending_id) == decided.approval.arguments != KEPT

    _, (raced,) = paused_run(redis_conn, step=3)
    approvals.reserve_card(redis_conn, raced.pending_id, "C1")
    choices = [json.dumps({"issue_id": 3, "labels": [f"l{i}"]}) for i in range(40)]

    def act(i: int) -> object:
        conn = redis.Redis(connection_pool=redis_conn.connection_pool)
        if i == 20:
            return decisions.decide(conn, raced.pending_id, "approved", "UMAINT", "maint", maint, place=HERE)
        return revisions.revise(conn, raced.pending_id, choices[i], "UMAINT", "maint", maint, place=HERE)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(act, range(40)))
    won = results[20]
    assert isinstance(won, Decided)
    assert _arguments(redis_conn, raced.pending_id) == won.approval.arguments  # nothing changed after the decision
    assert sum(isinstance(r, revisions.Revised) for r in results) == won.approval.revision
