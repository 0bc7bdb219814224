"""What Redis keeps and for how long (issue 29): approval expiry jobs carry a TTL."""

from __future__ import annotations

import time

import redis
from rq import Queue
from rq.job import Job

from workers.approvals import records as approvals

DAY = 86400


def test_an_expiry_job_lives_until_its_approvals_records_expire_even_with_no_scheduler(redis_conn: redis.Redis) -> None:
    queue = Queue("atlas-retention", connection=redis_conn)
    approvals.schedule_expiry(queue, "r1", 2, time.time() + 3600)
    job = Job.fetch(approvals.expiry_job_id("r1", 2), connection=redis_conn)
    lives = redis_conn.ttl(job.key)
    assert 3600 + approvals.RECORD_TTL_SECONDS - 60 <= lives <= 3600 + approvals.RECORD_TTL_SECONDS + 1
    assert job.ttl is not None and abs(job.ttl - lives) <= 2  # RQ re-applies it when the scheduler queues the job
    assert (job.result_ttl, job.failure_ttl) == (approvals.EXPIRY_RESULT_TTL_SECONDS, approvals.RECORD_TTL_SECONDS)
