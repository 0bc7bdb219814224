"""A run job that fails for good leaves a failure that expires (issue 35 item D): RQ keeps a failed job's
hash, its failed-registry entry and its result stream forever when the job names no `failure_ttl`."""

from __future__ import annotations

import redis
from rq import Queue
from rq.job import Job

from tests.support.processes import burst_worker
from workers.runs.job_hash import JobTemplate
from workers.runs.queueing import FAILURE_TTL_SECONDS, enqueue, job_id
from workers.runs.redelivery import Redelivery
from workers.runs.redelivery import job_id as redelivery_id


def test_a_run_job_that_failed_for_good_keeps_its_result_stream_for_a_limited_time(
    atlas_env: dict[str, str], redis_conn: redis.Redis
) -> None:
    enqueue(Queue("atlas", connection=redis_conn), "gone")  # a run whose record is gone: every try fails
    job = Job.fetch(job_id("gone"), connection=redis_conn)
    for _ in range(1 + (job.retries_left or 0)):  # a burst worker may stop before a retry it queued itself
        burst_worker(atlas_env)
        if job.get_status(refresh=True) == "failed":
            break
    assert job.get_status(refresh=True) == "failed"
    results = f"rq:results:{job.id}"
    assert redis_conn.exists(results) and 0 < redis_conn.ttl(results) <= FAILURE_TTL_SECONDS
    assert 0 < redis_conn.ttl(job.key) <= FAILURE_TTL_SECONDS


def test_every_way_a_run_job_is_made_names_a_failure_ttl(redis_conn: redis.Redis) -> None:
    """The intake's template (the hash written without RQ) and a scheduled re-delivery, as `enqueue` does."""
    template = dict(JobTemplate.build(redis_conn, "atlas").fields)
    assert template["failure_ttl"] == str(FAILURE_TTL_SECONDS)
    Redelivery(redis_conn, "atlas").schedule("r1", 1, 5.0)
    assert Job.fetch(redelivery_id("r1", 1), connection=redis_conn).failure_ttl == FAILURE_TTL_SECONDS
