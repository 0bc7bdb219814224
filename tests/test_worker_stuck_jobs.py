"""A job a worker dequeued and died before starting is taken back within seconds (workers/runs/stuck.py).

RQ's dequeue moves the job from the queue onto the queue's intermediate list (`LMOVE`), then the worker
registers its execution; a SIGKILL between the two leaves it only there, and RQ's own sweep takes it
back after a minute. The chaos check met it (bench/chaos.py): a run waited over a minute after a kill.
Here the dead worker's `LMOVE` is made by hand, exactly as RQ makes it, so the case is deterministic."""

from __future__ import annotations

import uuid
from pathlib import Path

import redis
from rq import Queue

from tests.processes import wait_for, worker_process
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import reply_text
from tests.tools_dataset import make_dataset
from workers.runs.queueing import submit
from workers.runs.store import RunStore


def test_a_job_left_dequeued_but_unstarted_by_a_dead_worker_is_worked_within_seconds(tmp_path: Path, redis_url: str) -> None:
    conn = redis.Redis.from_url(redis_url)
    queue_name = f"atlas-{uuid.uuid4().hex[:8]}"
    with ScriptedModel(reply_text("PermanentError.")) as model:
        env = {"ATLAS_HOME": str(tmp_path / "home"), "REDIS_URL": redis_url, "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
               "ATLAS_QUEUE": queue_name, "ATLAS_SEMANTIC": "off", "ATLAS_WORKER_HEARTBEAT_TTL": "2",
               "ATLAS_WORKER_MAINTENANCE": "1", **model.env()}
        run = submit(conn, queue_name, "What does ORB-1202 mean?")
        queue = Queue(queue_name, connection=conn)
        assert Queue.lmove(conn, queue.key, timeout=None) is not None  # what a worker's dequeue does first
        assert queue.count == 0 and conn.llen(queue.intermediate_queue.key) == 1
        with worker_process(env, "sweeper", "--concurrency", "2"):
            # RQ alone takes it back only after a minute on the list; a heartbeat TTL here
            final = wait_for(lambda: (r := RunStore(conn).load(run.id)).final and r, timeout=30, what="the stuck run answered")
        model.assert_done()
    assert final.answer == "PermanentError." and final.status == "done"
    assert conn.llen(queue.intermediate_queue.key) == 0
