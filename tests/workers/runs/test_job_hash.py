"""The run's job as the intake script writes it is the job `Queue.enqueue` would have written.

The bot writes a run's RQ job hash itself, from a template (workers/runs/job_hash.py), in the same
script as the claim and the run record (bot/slack/intake.py). These tests fail if RQ's layout drifts
from the template: field by field against a real `enqueue`, read back with RQ's `Job.fetch`, and
executed by a real `atlas worker` process.
"""

from __future__ import annotations

import os
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.job import Job, JobStatus
from rq.utils import utcformat, utcparse

from bot.claims import message_claim
from bot.slack.intake import Intake, NewRun
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import reply_text
from tests.support.processes import wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.jobs.runs import continue_run, on_job_failure
from workers.runs.job_hash import JobTemplate, stamp, stored_zlib
from workers.runs.queueing import RESULT_TTL_SECONDS, job_id, job_options, job_timeout
from workers.runs.state import Origin, Turn
from workers.runs.store import RunStore

OUTAGE = 120.0
TIMESTAMPS = {b"created_at", b"enqueued_at"}
COMPRESSED = {b"data"}  # RQ zlib-compresses it; the template stores it uncompressed in a zlib stream


def _intake(conn: redis.Redis, queue: str) -> Intake:
    return Intake(conn, JobTemplate.build(conn, queue, slack_outage_seconds=OUTAGE), "fp")


def _take(intake: Intake, run_id: str, question: str = "q", thread: str = "atlas:thread:-:C0:1") -> str:
    run = NewRun(question, Origin(kind="slack", channel="C0", thread_ts="1"))
    return intake.take(message_claim("T0", "C0", run_id, None), run, thread, run_id)


def _written_by_enqueue(
    conn: redis.Redis, queue: str, run_id: str
) -> tuple[dict[bytes, bytes], list[bytes], set[bytes]]:
    pipe = conn.pipeline(transaction=True)
    Queue(queue, connection=conn).enqueue(
        continue_run, run_id, pipeline=pipe, **job_options(run_id, slack_outage_seconds=OUTAGE)
    )
    pipe.execute()
    return _state(conn, queue, run_id)


def _state(conn: redis.Redis, queue: str, run_id: str) -> tuple[dict[bytes, bytes], list[bytes], set[bytes]]:
    return (
        conn.hgetall(Job.key_for(job_id(run_id))),
        conn.lrange(f"rq:queue:{queue}", 0, -1),
        conn.smembers("rq:queues"),
    )


def test_the_intake_writes_the_hash_queue_and_queue_set_that_enqueue_writes(redis_conn: redis.Redis) -> None:
    queue, run_id = "atlas-hash", "0123456789abcdef"
    by_rq = _written_by_enqueue(redis_conn, queue, run_id)
    redis_conn.flushdb()
    assert _take(_intake(redis_conn, queue), run_id) == "queued"
    ours = _state(redis_conn, queue, run_id)
    assert set(ours[0]) == set(by_rq[0])  # no field missing, none extra
    exact = TIMESTAMPS | COMPRESSED
    assert {k: v for k, v in ours[0].items() if k not in exact} == {k: v for k, v in by_rq[0].items() if k not in exact}
    assert zlib.decompress(ours[0][b"data"]) == zlib.decompress(by_rq[0][b"data"])  # the same pickled call
    for field in TIMESTAMPS:
        assert isinstance(utcparse(ours[0][field].decode()), datetime)  # RQ's own format
    assert ours[1:] == by_rq[1:]
    assert redis_conn.ttl(Job.key_for(job_id(run_id))) == -1  # as enqueue: no expiry until it ends


def test_a_stored_zlib_stream_decompresses_to_its_bytes_and_refuses_what_one_block_cannot_hold() -> None:
    for size in (0, 1, 97, 0xFFFF):
        data = os.urandom(size)
        assert zlib.decompress(stored_zlib(data)) == data
    with pytest.raises(ValueError):
        stored_zlib(bytes(0x10000))


def test_timestamps_are_written_as_rq_writes_them() -> None:
    for moment in (datetime(2026, 12, 1, 8, 40, 20, 853732, tzinfo=UTC), datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)):
        assert stamp(moment) == utcformat(moment)
        assert utcparse(stamp(moment)) == moment


def test_rq_reads_the_intake_job_back_with_every_option(redis_conn: redis.Redis) -> None:
    queue, run_id = "atlas-hash", "fedcba9876543210"
    assert _take(_intake(redis_conn, queue), run_id) == "queued"
    job = Job.fetch(job_id(run_id), connection=redis_conn)
    assert job.func_name == "workers.jobs.runs.continue_run" and job.func is continue_run
    assert job.args == (run_id,) and job.kwargs == {}
    assert job.get_status() == JobStatus.QUEUED and job.origin == queue
    assert job.timeout == job_timeout(slack_outage_seconds=OUTAGE)  # the outage-aware limit
    assert job.result_ttl == RESULT_TTL_SECONDS and job.description == f"atlas run {run_id}"
    assert job.retries_left == 2 and job.retry_intervals == [0]
    assert job.failure_callback is on_job_failure
    assert Queue(queue, connection=redis_conn).get_job_ids() == [job_id(run_id)]


def test_the_run_record_carries_the_thread_turns_and_the_fingerprint(redis_conn: redis.Redis) -> None:
    thread = "atlas:thread:-:C0:2"
    turns = [Turn(question=f"q{i}", answer=f"a{i}") for i in range(2)]
    redis_conn.rpush(thread, *(t.model_dump_json() for t in turns))
    assert _take(_intake(redis_conn, "atlas-hash"), "1111222233334444", question="follow-up", thread=thread) == "queued"
    run = RunStore(redis_conn).load("1111222233334444")
    assert run.history == turns and run.question == "follow-up" and run.settings_fingerprint == "fp"
    assert redis_conn.ttl("atlas:run:1111222233334444") > 0


def test_a_real_worker_runs_the_intake_job_to_an_answer(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(reply_text("ORB-1202 is PermanentError."))
    queue = f"atlas-{uuid.uuid4().hex[:8]}"
    env = {
        "ATLAS_HOME": str(tmp_path / "home"),
        "REDIS_URL": redis_url,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_QUEUE": queue,
        **scripted_model.env(),
    }
    conn = redis.Redis.from_url(redis_url)
    run_id = uuid.uuid4().hex[:16]
    run = NewRun("What does ORB-1202 mean?", Origin(kind="slack", channel="C0", thread_ts="1"))
    assert (
        Intake(conn, JobTemplate.build(conn, queue)).take(
            message_claim("T0", "C0", run_id, None), run, "atlas:thread:none", run_id
        )
        == "queued"
    )
    with worker_process(env, f"hash-{run_id}", "--queue", queue):
        done = wait_for(lambda: (r := RunStore(conn).load(run_id)).final and r, timeout=60, what="the run answered")
        job = Job.fetch(job_id(run_id), connection=conn)
        wait_for(lambda: job.get_status() == JobStatus.FINISHED, what="RQ to finish the job")
    assert done.status == "done" and done.answer == "ORB-1202 is PermanentError."
