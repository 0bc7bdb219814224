"""`atlas ask` starts a background worker unless a live one serves its queue (atlas/cli/ask.py `served`)."""

from __future__ import annotations

import redis
from rq import Queue, Worker

from atlas.cli.ask import served


def test_a_queue_is_served_only_while_a_registered_worker_s_key_lives(redis_conn: redis.Redis) -> None:
    queue = Queue("atlas-0123456789ab", connection=redis_conn)
    assert not served(queue)
    worker = Worker([queue], name="ask-served", connection=redis_conn)
    worker.register_birth()
    assert served(queue)
    assert not served(Queue("atlas-another", connection=redis_conn))  # a worker of another queue serves none of it
    redis_conn.delete(worker.key)  # killed: its key expired, its registration left behind
    assert not served(queue)
    assert Worker.all_keys(queue=queue) == [worker.key]  # still registered: `served` looked at the key itself
