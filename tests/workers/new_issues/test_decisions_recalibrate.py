"""Calibration after every N decisions (issue 36 item 2), through the real decision-recording path and real Redis:
the DECISIONS_EVERY-th label or duplicate decision recorded since the last calibration queues the repository's
recalibration job, here the Approve of a real triage card in a real worker, which then runs it on every decision
so far and counts from zero again; a burst of decisions recorded at once queues one job, not one per crossing;
a reply's fate, and a decision recorded without a worker's queue, count toward nothing."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import redis
from rq import Queue
from rq.job import Job

from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, actions, inbox
from workers.approvals.records import Approval
from workers.new_issues import learning
from workers.runs.job_names import RECALIBRATE
from workers.runs.triage_record import TriageAction, TriageRecord
from workers.triage import outcomes, recalibration

REPO = "acme/rocket"
EVERY = recalibration.DECISIONS_EVERY


def _decide(conn: redis.Redis, queue: str | None, issue: int, labels: list[str], kept: list[str], pending: str) -> int:
    """One decided "add these labels" card action, recorded as the worker records it (learning.card_decision)."""
    record = TriageRecord(repo=REPO, issue=issue)
    action = TriageAction(
        kind="labels", mode="draft", tool="add_labels", arguments={"labels": labels}, call_id="triage-labels", step=2
    )
    approval = Approval(
        pending_id=pending,
        run_id=pending.split(".")[0],
        call_id="triage-labels",
        name="add_labels",
        arguments=json.dumps({"issue_id": issue, "labels": kept}),
        step=2,
        status="approved",
    )
    return learning.card_decision(conn, record, action, approval, queue)


def _reply(conn: redis.Redis, queue: str, issue: int, pending: str) -> int:
    record = TriageRecord(repo=REPO, issue=issue)
    body = {"issue_id": issue, "body": "Thanks: which version?"}
    action = TriageAction(
        kind="reply", mode="draft", tool="post_comment", arguments=body, call_id="triage-reply", step=3
    )
    approval = Approval(
        pending_id=pending,
        run_id=pending.split(".")[0],
        call_id="triage-reply",
        name="post_comment",
        arguments=json.dumps(body),
        step=3,
        status="approved",
    )
    return learning.card_decision(conn, record, action, approval, queue)


def _since(conn: redis.Redis) -> int:
    return int(conn.get(recalibration.decisions_key(REPO)) or 0)


def test_the_nth_decision_on_a_card_queues_the_recalibration_a_worker_runs_on_every_decision(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url) as box:
        queue = Queue(box.settings.queue_name, connection=box.conn)
        issue = box.open_issue("KeyError 'retry_policy' when the scheduler starts", f"On 2.3:\n\n{TRACEBACK}\n")
        earlier = [f"area-{n}" for n in range(EVERY - 1)]  # one short of due, decided on earlier cards
        assert _decide(box.conn, box.settings.queue_name, 90, earlier, earlier[:3], "run-early.triage-labels") == len(
            earlier
        )
        assert _reply(box.conn, box.settings.queue_name, 91, "run-early.triage-reply") == 1  # a reply: not counted
        assert _since(box.conn) == EVERY - 1
        assert not [j for j in queue.jobs if j.func_name == RECALIBRATE]  # not yet due
        with box.worker("decisions-w1"):
            (card,) = box.cards(timeout=120)
            assert not [j for j in queue.jobs if j.func_name == RECALIBRATE]  # a new issue's triage decides nothing
            assert box.click(card, "labels") == 200
            wait_for(lambda: "labels" not in actions(box.card_now(card)), what="the labels decided", timeout=90)

            def finished() -> str | None:
                try:
                    job = Job.fetch(recalibration.job_id(REPO), connection=box.conn)
                except Exception:  # noqa: BLE001 - not queued yet
                    return None
                return str(job.return_value()) if job.get_status(refresh=True) == "finished" else None

            result = wait_for(finished, what="the recalibration the card's decision queued", timeout=90)
        decided = outcomes.load(box.conn, REPO)
        assert len(decided) > EVERY - 1 and any(o.issue == issue["number"] and o.source == "card" for o in decided)
        assert f"recalibrated {REPO} on " in result and f" and {len(decided)} decisions" in result
        assert _since(box.conn) == 0 and not box.conn.exists(recalibration.marker(REPO))  # counting from zero


def test_a_burst_of_decisions_queues_one_recalibration_and_unqueued_records_count_nothing(
    redis_conn: redis.Redis, redis_url: str
) -> None:
    name = "q-decisions-burst"
    workers = 8
    per = 6  # 48 decisions at once: the count passes 20 and 40, the second finds the first still queued

    def decide(k: int) -> None:
        conn = redis.Redis.from_url(redis_url)
        labels = [f"topic-{k}-{n}" for n in range(per)]
        for n, label in enumerate(labels):
            _decide(conn, name, 100 + k, [label], [label], f"run-{k}-{n}.triage-labels")

    threads = [threading.Thread(target=decide, args=(k,)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    jobs = Queue(name, connection=redis_conn).jobs
    assert [(j.func_name, j.args) for j in jobs] == [(RECALIBRATE, (REPO,))]
    assert _since(redis_conn) == workers * per - 2 * EVERY
    assert _decide(redis_conn, None, 200, ["docs"], [], "run-cli.triage-labels") == 1  # no queue: not counted
    assert _since(redis_conn) == workers * per - 2 * EVERY
    assert _decide(redis_conn, name, 100, ["topic-0-0"], ["topic-0-0"], "run-0-0.triage-labels") == 0  # once
    assert _since(redis_conn) == workers * per - 2 * EVERY
