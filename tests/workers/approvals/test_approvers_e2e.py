"""Who may approve, end to end: the approver settings are read from the environment (as `atlas serve`
reads them), reach the policy the click handler enforces, and signed clicks through the real Bolt app
are refused or accepted accordingly. Slack's directory (users.info, usergroups.users.list) is the
stand-in's, through the real WebClient."""

from __future__ import annotations

from pathlib import Path

from tests.support.approvals_harness import ASKER, MAINTAINER, STRANGER, Stack, decisions, stack
from tests.support.processes import wait_for

ADMIN, OWNER, GROUPIE = "U0ADMIN", "U0OWNER", "U0GROUPIE"
LABEL = ("add_labels", {"issue_id": 3, "labels": ["bug"]})


def _people(s: Stack) -> None:
    for user in (ASKER, MAINTAINER, STRANGER, GROUPIE):
        s.api.add_user(user)
    s.api.add_user(ADMIN, admin=True)
    s.api.add_user(OWNER, primary_owner=True)
    s.api.add_group("S0MAINT", [GROUPIE])


def _refused(s: Stack, card: dict, user: str) -> bool:
    """Click Approve as `user`; True if refused with the ephemeral note and nothing decided."""
    before = len([n for n in s.api.ephemerals() if n["user"] == user])
    assert s.click(card, user) == 200
    wait_for(lambda: len([n for n in s.api.ephemerals() if n["user"] == user]) > before, what=f"a note to {user}")
    note = [n for n in s.api.ephemerals() if n["user"] == user][-1]
    return "can't approve this" in note["text"] and decisions(s.conn, card).status == "pending"


def _accepted(s: Stack, card: dict, user: str) -> bool:
    assert s.click(card, user) == 200
    found = wait_for(lambda: decisions(s.conn, card).decided and decisions(s.conn, card), what="a decision")
    return found.status == "approved" and found.decider == user


def test_by_default_only_workspace_admins_and_owners_approve_and_the_asker_does_not(
    tmp_path: Path, redis_url: str
) -> None:
    with stack(tmp_path, redis_url, ATLAS_APPROVERS="") as s:
        _people(s)
        first, second = s.pause([LABEL, ("post_comment", {"issue_id": 3, "body": "Fixed."})])
        assert _refused(s, first, ASKER)  # asked, but is no maintainer
        assert _refused(s, first, STRANGER)
        assert _accepted(s, first, ADMIN)
        assert _accepted(s, second, OWNER)
        looked_up = [c.args["user"] for c in s.api.calls_to("users.info")]
        assert sorted(looked_up) == sorted([ASKER, STRANGER, ADMIN, OWNER])  # each once: cached in Redis
        assert s.conn.ttl(f"atlas:approvers:admin:{ADMIN}") > 0


def test_configured_approvers_replace_the_admins(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url, ATLAS_APPROVERS=f" {MAINTAINER} ,U0OTHER") as s:
        _people(s)
        (card,) = s.pause([LABEL])
        assert _refused(s, card, ASKER)
        assert _refused(s, card, ADMIN)
        assert _accepted(s, card, MAINTAINER)
        # the accepted click resumes the run (queued just after Slack's ack)
        assert wait_for(lambda: s.resume_job(s.run_of(card).id, 1), what="the resume job") is not None
        assert s.api.calls_to("users.info") == []


def test_an_approver_group_from_the_environment_is_enforced(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url, ATLAS_APPROVERS="", ATLAS_APPROVER_GROUP="S0MAINT") as s:
        _people(s)
        (card,) = s.pause([LABEL])
        assert _refused(s, card, ASKER)
        assert _refused(s, card, ADMIN)  # a group is configured: admins are not approvers by that alone
        assert _accepted(s, card, GROUPIE)
        assert [c.args["usergroup"] for c in s.api.calls_to("usergroups.users.list")] == ["S0MAINT"]  # cached


def test_asker_may_approve_is_an_explicit_opt_in(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url, ATLAS_ASKER_MAY_APPROVE="true") as s:
        _people(s)
        (card,) = s.pause([LABEL])
        assert _refused(s, card, STRANGER)
        assert _accepted(s, card, ASKER)


def test_an_asker_who_is_an_approver_decides_their_own_run(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url, ATLAS_APPROVERS=ASKER, ATLAS_ASKER_MAY_APPROVE="false") as s:
        _people(s)
        (card,) = s.pause([LABEL])
        assert _refused(s, card, MAINTAINER)
        assert _accepted(s, card, ASKER)


def test_a_failed_directory_lookup_grants_nothing(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url, ATLAS_APPROVERS="") as s:
        _people(s)
        (card,) = s.pause([LABEL])
        s.api.server_error("users.info", times=3)
        assert _refused(s, card, ADMIN)
        assert not s.conn.exists(f"atlas:approvers:admin:{ADMIN}")  # a failure is not cached
        assert _accepted(s, card, ADMIN)
