"""A job a worker dequeued and died before starting is taken back within a heartbeat TTL (workers/runs/stuck.py).

RQ's dequeue moves the job from the queue onto the queue's intermediate list (`LMOVE`), then the worker
registers its execution; a SIGKILL between the two leaves it only there, and RQ's own sweep takes it
back after a minute. The chaos check met it (bench/chaos.py): a run waited over a minute after a kill.
Here the dead worker's `LMOVE` is RQ's own (`Queue.lmove`), so the case is deterministic; the sweeps are
the worker's maintenance, against the real test Redis."""

from __future__ import annotations

import uuid

import redis
from rq import Queue
from rq.job import Job

from workers.process.rq_worker import make_worker
from workers.runs.queueing import job_id, submit
from workers.runs.stuck import take_back


def _left_by_a_dead_worker(conn: redis.Redis) -> tuple[Queue, str]:
    queue = Queue(f"atlas-{uuid.uuid4().hex[:8]}", connection=conn)
    run = submit(conn, queue.name, "What does ORB-1202 mean?")
    assert Queue.lmove(conn, queue.key, timeout=None) is not None  # what a worker's dequeue does first
    assert queue.count == 0 and queue.intermediate_queue.get_job_ids() == [job_id(run.id)]
    return queue, job_id(run.id)


def test_a_job_dequeued_but_never_started_is_queued_again_after_a_heartbeat_ttl(redis_conn: redis.Redis) -> None:
    queue, stuck = _left_by_a_dead_worker(redis_conn)
    worker = make_worker(queue, heartbeat_ttl=2, maintenance_seconds=1)
    take_back(worker, stuck_seconds=0.0)  # the first sweep that sees it only notes when
    assert queue.count == 0
    take_back(worker, stuck_seconds=0.0)  # the next one, past the TTL, takes it back: queued again, by its retry
    assert queue.get_job_ids() == [stuck] and queue.intermediate_queue.get_job_ids() == []
    assert (
        Job.fetch(stuck, connection=redis_conn).retries_left == 1
    )  # one of its two retries spent, as for an abandoned job


def test_rq_s_own_sweep_leaves_it_a_minute_and_a_live_worker_s_fresh_dequeue_is_left_alone(
    redis_conn: redis.Redis,
) -> None:
    queue, stuck = _left_by_a_dead_worker(redis_conn)
    worker = make_worker(queue, heartbeat_ttl=2, maintenance_seconds=1)
    for _ in range(2):
        queue.intermediate_queue.cleanup(worker, queue)  # RQ's, as its maintenance runs it
    assert queue.count == 0 and queue.intermediate_queue.get_job_ids() == [stuck]
    take_back(worker, stuck_seconds=60.0)  # seen just now: a live worker may still be registering it
    assert queue.count == 0 and queue.intermediate_queue.get_job_ids() == [stuck]
