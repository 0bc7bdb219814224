"""The webhook outcomes on their own (issue 36 item 4), on real Redis with GitHub's payloads: a duplicate closed by
hand is a duplicate (and refutes a card's claim of another original), a bot's label and a label on an issue never
triaged teach nothing, Atlas's own label arriving back is not a maintainer's, and a retried job records once."""

from __future__ import annotations

import redis

from tests.standins.github_repo import Repo
from tests.standins.github_webhooks import payload, sent_by
from workers.new_issues import claim, learning
from workers.runs.state import Origin
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageAction, TriageRecord
from workers.triage import outcomes

REPO = "acme/rocket"


def _triaged(conn: redis.Redis, number: int, *, claimed: int, labels: list[str], status: str = "pending") -> None:
    record = TriageRecord(
        repo=REPO,
        issue=number,
        actions=[
            TriageAction(
                kind="duplicates",
                mode="draft",
                tool="close_issue",
                call_id="triage-duplicates",
                step=1,
                status="pending",
                arguments={"issue_id": number, "reason": "duplicate", "duplicate_of": claimed},
            ),
            TriageAction(
                kind="labels",
                mode="draft",
                tool="add_labels",
                call_id="triage-labels",
                step=2,
                status=status,  # type: ignore[arg-type]
                arguments={"issue_id": number, "labels": labels},
            ),
        ],
    )
    run_id, _ = claim.start(conn, "unused-queue", record, Origin(kind="slack", channel="C1"))
    run = RunStore(conn).load(run_id)
    run.status = "awaiting_approval"
    RunStore(conn).save(run)


def test_webhook_outcomes(redis_conn: redis.Redis) -> None:
    repo = Repo()
    for name in ("bug", "docs"):
        repo.add_label(name)
    first, second, never = (repo.add_issue(f"Issue {n}", "Body.") for n in range(3))
    _triaged(redis_conn, first["number"], claimed=7, labels=[])
    _triaged(redis_conn, second["number"], claimed=7, labels=["bug"], status="done")

    closed = payload(
        "issues-closed",
        repo,
        action="closed",
        issue=repo.edit_issue(first["number"], state="closed", state_reason="duplicate"),
    )
    note = learning.on_event(redis_conn, REPO, "issues", "closed", sent_by(closed, "maya"), "job-1", original=9)
    assert "duplicate 9 accepted" in note and "duplicate 7 refused" in note
    assert (
        learning.on_event(redis_conn, REPO, "issues", "closed", sent_by(closed, "maya"), "job-1", original=9) == ""
    )  # retried

    bug, docs = repo.labels["bug"], repo.labels["docs"]
    own = payload("issues-labeled", repo, action="labeled", issue=repo.issues[second["number"]], label=bug)
    assert (
        learning.on_event(redis_conn, REPO, "issues", "labeled", sent_by(own, "atlas-bot"), "job-2") == ""
    )  # Atlas's own label
    by_bot = payload("issues-labeled", repo, action="labeled", issue=repo.issues[second["number"]], label=docs)
    assert (
        learning.on_event(redis_conn, REPO, "issues", "labeled", sent_by(by_bot, "stale[bot]", kind="Bot"), "job-3")
        == ""
    )
    untriaged = payload("issues-labeled", repo, action="labeled", issue=repo.issues[never["number"]], label=docs)
    assert learning.on_event(redis_conn, REPO, "issues", "labeled", sent_by(untriaged, "maya"), "job-4") == ""
    by_hand = payload("issues-labeled", repo, action="labeled", issue=repo.issues[second["number"]], label=docs)
    assert "label docs accepted" in learning.on_event(
        redis_conn, REPO, "issues", "labeled", sent_by(by_hand, "maya"), "job-5"
    )

    seen = [(o.issue, o.kind, o.value, o.accepted, o.source) for o in outcomes.load(redis_conn, REPO)]
    assert seen == [
        (first["number"], "duplicate", "9", True, "maintainer"),
        (first["number"], "duplicate", "7", False, "maintainer"),
        (second["number"], "label", "docs", True, "maintainer"),
    ]
