"""What Redis keeps and for how long (issue 29): approval expiry jobs carry a TTL, the audit log is trimmed
to ATLAS_AUDIT_RETENTION_DAYS by the workers' maintenance."""

from __future__ import annotations

import time

import pytest
import redis
from rq import Queue
from rq.job import Job

from atlas.connection import text
from atlas.settings import ConfigError, Settings
from workers.approvals import audit
from workers.approvals import records as approvals
from workers.process.rq_worker import make_worker

DAY = 86400


def test_an_expiry_job_lives_until_its_approvals_records_expire_even_with_no_scheduler(redis_conn: redis.Redis) -> None:
    queue = Queue("atlas-retention", connection=redis_conn)
    approvals.schedule_expiry(queue, "r1", 2, time.time() + 3600)
    job = Job.fetch(approvals.expiry_job_id("r1", 2), connection=redis_conn)
    lives = redis_conn.ttl(job.key)
    assert 3600 + approvals.RECORD_TTL_SECONDS - 60 <= lives <= 3600 + approvals.RECORD_TTL_SECONDS + 1
    assert job.ttl is not None and abs(job.ttl - lives) <= 2  # RQ re-applies it when the scheduler queues the job
    assert (job.result_ttl, job.failure_ttl) == (approvals.EXPIRY_RESULT_TTL_SECONDS, approvals.RECORD_TTL_SECONDS)


def _old_and_new(conn: redis.Redis) -> tuple[list[str], list[str]]:
    """Entries written 40 and 10 days ago (explicit stream ids, as Redis stamps them) and one just now."""
    now_ms = int(time.time() * 1000)
    old = [
        text(conn.xadd(audit.AUDIT_KEY, {"kind": "request", "at": "0"}, id=f"{now_ms - days * DAY * 1000}-0"))
        for days in (40, 31)
    ]
    new = [
        text(conn.xadd(audit.AUDIT_KEY, {"kind": "request", "at": "0"}, id=f"{now_ms - 10 * DAY * 1000}-0")),
        audit.append(conn, "result", run="r1", decision="done"),
    ]
    return old, new


def test_trimming_drops_entries_older_than_the_retention_and_keeps_the_rest(redis_conn: redis.Redis) -> None:
    old, new = _old_and_new(redis_conn)
    assert audit.trim(redis_conn, 30) == 2
    assert [e.id for e in audit.entries(redis_conn)] == new[::-1]
    assert audit.trim(redis_conn, 0) == 0  # 0: kept forever
    assert len(audit.entries(redis_conn)) == 2


def test_a_worker_s_maintenance_trims_the_audit_log_to_the_setting(redis_conn: redis.Redis) -> None:
    old, new = _old_and_new(redis_conn)
    worker = make_worker(Queue("atlas-retention", connection=redis_conn), audit_retention_days=30)
    worker.work(burst=True)
    assert [e.id for e in audit.entries(redis_conn)] == new[::-1]


def test_the_retention_setting_defaults_to_90_days_and_rejects_nonsense() -> None:
    assert Settings.from_env({}).audit_retention_days == 90
    assert Settings.from_env({"ATLAS_AUDIT_RETENTION_DAYS": "0"}).audit_retention_days == 0
    for bad in ("-1", "ninety", "1.5"):
        with pytest.raises(ConfigError, match="ATLAS_AUDIT_RETENTION_DAYS"):
            Settings.from_env({"ATLAS_AUDIT_RETENTION_DAYS": bad})
