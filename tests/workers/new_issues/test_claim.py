"""One triage run per issue (issue 24): the claim is by repository and issue number, written with the run in one
script; a claimed run whose enqueue was lost (the process died in between) is queued by the next delivery."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import redis
from rq import Queue
from rq.job import Job

from workers.new_issues import claim
from workers.runs.queueing import job_id
from workers.runs.state import Origin
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageRecord

ORIGIN = Origin(kind="slack", channel="C0TRIAGE")


def test_concurrent_deliveries_claim_once_and_a_lost_enqueue_is_repaired_by_the_next(redis_conn: redis.Redis) -> None:
    record = TriageRecord(repo="acme/rocket", issue=7, title="t")
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda _: claim.start(redis_conn, "atlas-claims", record, ORIGIN), range(8)))
    assert len({run_id for run_id, _ in outcomes}) == 1 and [started for _, started in outcomes].count(True) == 1
    run_id = outcomes[0][0]
    queue = Queue("atlas-claims", connection=redis_conn)
    assert queue.job_ids == [job_id(run_id)]
    assert claim.start(redis_conn, "atlas-claims", TriageRecord(repo="acme/other", issue=7), ORIGIN)[
        1
    ]  # another repository's #7
    queue.empty()  # the job is gone: as if the process died between the claim and the enqueue
    assert not Job.exists(job_id(run_id), connection=redis_conn)
    assert claim.start(redis_conn, "atlas-claims", record, ORIGIN) == (run_id, False)
    assert job_id(run_id) in queue.job_ids  # queued again, the same run
    run = RunStore(redis_conn).load(run_id)
    run.status = "awaiting_approval"
    RunStore(redis_conn).save(run)
    queue.empty()
    assert (
        claim.start(redis_conn, "atlas-claims", record, ORIGIN) == (run_id, False) and queue.job_ids == []
    )  # past queued: nothing
