"""The asker's messages that arrived while their thread's run was working join that conversation:
they wait (workers/help/threads.py `follow` says "joined") and, once the run has answered, one run
answers them all, with the thread's turns, the finished run's included, as its history. No second
run works the thread in parallel, and none answers without the first one's answer in view.
"""

from __future__ import annotations

import hashlib
import json
import logging

import redis
from rq import Queue

from atlas.settings import Settings
from workers.help import threads
from workers.runs.job_names import CONTINUE_RUN
from workers.runs.queueing import job_options
from workers.runs.state import RunState, Turn
from workers.runs.store import RunStore

log = logging.getLogger("atlas.help")


def waiting_message(text: str, message_id: str, turns_key: str) -> str:
    """How a waiting message is kept: its text, its id, and where its thread's turns are."""
    return json.dumps({"text": text, "id": message_id, "turns": turns_key})


def next_run_id(run_id: str) -> str:
    """Deterministic: a retried job names the same next run."""
    return hashlib.sha256(f"{run_id}:waiting".encode()).hexdigest()[:16]


def start_waiting(conn: redis.Redis, settings: Settings, run: RunState) -> str | None:
    """After `run` answered: the run of the messages that waited for it, recorded and queued; its id, or None."""
    if not run.final:
        return None
    next_id = next_run_id(run.id)
    waiting = [json.loads(raw) for raw in threads.finished(conn, threads.thread_of(run), run.id, next_id)]
    if not waiting:
        return None
    history = [Turn.model_validate_json(raw) for raw in conn.lrange(waiting[-1]["turns"], 0, -1)]
    origin = run.origin.model_copy(
        update={"message_ts": waiting[-1]["id"], "thread_ts": run.origin.thread_ts or run.origin.message_ts}
    )
    follow_up = RunState(
        id=next_id,
        question="\n".join(w["text"] for w in waiting),
        origin=origin,
        history=history,
        settings_fingerprint=settings.fingerprint,
    )
    pipe = conn.pipeline(transaction=True)  # the record and its job together (RQ's enqueue opens the transaction)
    Queue(settings.queue_name, connection=conn).enqueue(
        CONTINUE_RUN, next_id, pipeline=pipe, **job_options(next_id, slack_outage_seconds=settings.slack_outage_seconds)
    )
    RunStore(pipe).save(follow_up)
    pipe.execute()
    log.info("run %s: %d message(s) sent while it worked are answered by run %s", run.id, len(waiting), next_id)
    return next_id
