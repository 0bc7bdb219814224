"""The one-trip decision script against the approver policy, at every policy and every kind of clicker.

The reference is `may_decide` over what the Slack directory really says. Each case is decided twice:
with the directory answer not cached (the script says `Unsettled`, the caller asks Slack through the
real WebClient and the stand-in, then decides: the Slack-lookup path) and again on a second call with
the answer now cached (the script alone: the one-trip path). Both must agree with the reference, so
the Lua side and the Python side of the rule cannot drift apart, and the script reads the cache in
the format SlackDirectory writes it.
"""

from __future__ import annotations

import json

import pytest
import redis
from slack_sdk import WebClient

from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from workers.approvals import audit, decisions
from workers.approvals import records as approvals
from workers.approvals.approvers import (
    CACHE_SECONDS,
    Policy,
    SlackDirectory,
    admin_key,
    group_key,
    may_decide,
    standing,
)
from workers.approvals.decisions import Decided, Missing, Refused, Stale, Unsettled
from workers.runs.state import Origin, PendingCall, RunState

ASKER, MAINT, GROUPIE, ADMIN, STRANGER, GONE_ADMIN = (
    "U0ASKER",
    "U0MAINT",
    "U0GROUPIE",
    "U0ADMIN",
    "U0STRANGER",
    "U0GONEADM",
)
GROUP = "S0MAINT"
POLICIES = {
    "ids": Policy(approvers=frozenset({MAINT})),
    "ids, asker opt-in": Policy(approvers=frozenset({MAINT}), asker_may_approve=True),
    "asker listed": Policy(approvers=frozenset({ASKER})),
    "group": Policy(group=GROUP),
    "ids and group": Policy(approvers=frozenset({MAINT}), group=GROUP),
    "group, asker opt-in": Policy(group=GROUP, asker_may_approve=True),
    "empty group": Policy(group="S0EMPTY"),
    "admins": Policy(),
    "admins, asker opt-in": Policy(asker_may_approve=True),
}
CLICKERS = [ASKER, MAINT, GROUPIE, ADMIN, STRANGER, GONE_ADMIN, ""]


class Truth:
    """What Slack's directory says, without Redis: the reference `may_decide` asks this."""

    def members(self, group: str) -> frozenset[str]:
        return frozenset({GROUPIE}) if group == GROUP else frozenset()

    def is_admin(self, user: str) -> bool:
        return user == ADMIN  # GONE_ADMIN is an admin whose account was deleted


def _directory(api: SlackAPI, conn: redis.Redis) -> SlackDirectory:
    for user in (ASKER, MAINT, GROUPIE, STRANGER):
        api.add_user(user)
    api.add_user(ADMIN, admin=True)
    api.add_user(GONE_ADMIN, admin=True, deleted=True)
    api.add_group(GROUP, [GROUPIE])
    api.add_group("S0EMPTY", [])
    return SlackDirectory(WebClient(token=api.token, base_url=api.base_url), conn)


def pending(conn: redis.Redis, requester: str, calls: int = 1, ttl: int = 3600) -> list[str]:
    """A paused step asked by `requester`; its pending ids."""
    run = RunState(question="triage #3", origin=Origin(kind="slack", user=requester, channel="C1", thread_ts="1.0"))
    found = [
        PendingCall(
            pending_id=f"{run.id}.call_{i}",
            call_id=f"call_{i}",
            name="add_labels",
            arguments=json.dumps({"issue_id": 3, "labels": ["bug"]}),
            step=1,
        )
        for i in range(calls)
    ]
    assert approvals.open_step(conn, run, found, ttl)
    return [p.pending_id for p in found]


def click(
    conn: redis.Redis,
    pending_id: str,
    user: str,
    policy: Policy,
    directory: SlackDirectory,
    decision: approvals.Decision = "approved",
) -> tuple[decisions.Outcome, bool]:
    """The bot's path: the script, and the Slack lookup only if it asks; also whether it asked."""
    found = decisions.decide(conn, pending_id, decision, user, user.lower(), standing(user, policy))
    if isinstance(found, Unsettled):
        return decisions.settle(conn, found, decision, user, user.lower(), policy, directory), True
    return found, False


@pytest.mark.parametrize("requester", [ASKER, ADMIN])
@pytest.mark.parametrize("clicker", CLICKERS)
@pytest.mark.parametrize("name", list(POLICIES))
def test_both_paths_decide_as_may_decide_does(
    name: str,
    clicker: str,
    requester: str,
    slack_api: SlackAPI,  # noqa: F811
    redis_conn: redis.Redis,
) -> None:
    policy, directory = POLICIES[name], _directory(slack_api, redis_conn)
    expected = may_decide(clicker, requester, policy, Truth())
    cold, warm = pending(redis_conn, requester, calls=2)
    looked_up, asked = click(redis_conn, cold, clicker, policy, directory)  # nothing cached: Slack is asked if needed
    cached, asked_again = click(redis_conn, warm, clicker, policy, directory)  # now the script decides alone
    assert isinstance(looked_up, Decided if expected else Refused)
    assert isinstance(cached, Decided if expected else Refused)
    assert not asked_again
    if expected:
        assert (looked_up.approval.status, looked_up.approval.decider) == ("approved", clicker)
    else:
        assert approvals.load(redis_conn, cold).status == "pending"  # type: ignore[union-attr]
    right = standing(clicker, policy)
    if right.granted or right.lookup is None or (right.asker_counts and clicker == requester):
        assert not asked and slack_api.calls_to("users.info", "usergroups.users.list") == []


def test_a_demoted_admin_keeps_the_right_only_until_the_cached_answer_expires(
    slack_api: SlackAPI,  # noqa: F811
    redis_conn: redis.Redis,
) -> None:
    directory, policy = _directory(slack_api, redis_conn), Policy()
    first, second, third = pending(redis_conn, ASKER, calls=3)
    assert isinstance(click(redis_conn, first, ADMIN, policy, directory)[0], Decided)
    slack_api.add_user(ADMIN)  # demoted in Slack
    assert isinstance(click(redis_conn, second, ADMIN, policy, directory)[0], Decided)  # within the minute: cached
    assert 0 < redis_conn.ttl(admin_key(ADMIN)) <= CACHE_SECONDS  # the script read the answer and kept its TTL
    redis_conn.delete(admin_key(ADMIN))  # the minute is over
    found, asked = click(redis_conn, third, ADMIN, policy, directory)
    assert asked and isinstance(found, Refused) and approvals.load(redis_conn, third).status == "pending"  # type: ignore[union-attr]
    assert json.loads(redis_conn.get(admin_key(ADMIN)) or "null") is False


def test_a_failed_lookup_grants_nothing_and_caches_nothing(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:  # noqa: F811
    directory = _directory(slack_api, redis_conn)
    (pid,) = pending(redis_conn, ASKER)
    slack_api.server_error("usergroups.users.list", times=1)  # this client does not retry
    found, asked = click(redis_conn, pid, GROUPIE, Policy(group=GROUP), directory)
    assert asked and isinstance(found, Refused) and not redis_conn.exists(group_key(GROUP))
    assert isinstance(click(redis_conn, pid, GROUPIE, Policy(group=GROUP), directory)[0], Decided)  # Slack is back


def test_missing_stale_and_refused_come_in_that_order(slack_api: SlackAPI, redis_conn: redis.Redis) -> None:  # noqa: F811
    directory, policy = _directory(slack_api, redis_conn), Policy(approvers=frozenset({MAINT}))
    assert isinstance(click(redis_conn, "no-such.call", STRANGER, policy, directory)[0], Missing)
    assert isinstance(click(redis_conn, "no-such.call", MAINT, policy, directory)[0], Missing)
    (pid,) = pending(redis_conn, ASKER)
    decided, _ = click(redis_conn, pid, MAINT, policy, directory, "denied")
    assert isinstance(decided, Decided) and decided.step_complete and decided.approval.status == "denied"
    again, _ = click(redis_conn, pid, MAINT, policy, directory)
    assert isinstance(again, Stale) and (again.approval.status, again.approval.decider) == ("denied", MAINT)
    refused, _ = click(redis_conn, pid, STRANGER, policy, directory)  # a non-approver hears "can't", not "already"
    assert isinstance(refused, Refused)
    assert [(e.get("decider"), e.get("decision")) for e in audit.entries(redis_conn) if e.kind == "decision"] == [
        (MAINT, "denied")
    ]
