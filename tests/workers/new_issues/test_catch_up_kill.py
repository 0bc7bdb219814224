"""A worker SIGKILLed in the middle of the periodic sync must not hold the next syncs off: its sync lock lapses
in seconds, so the catch-up still starts triage for an issue whose webhook met Redis down. The chaos bench at
full scale lost four such issues this way: the lock of the sync on the killed worker lived an hour, and every
sync after it said "another sync is running" (docs/benchmarks.md, Chaos)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from rq import Queue
from rq.job import Job

from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, inbox, text_of
from workers.new_issues import catch_up
from workers.runs.job_names import PERIODIC_SYNC


def test_a_sync_killed_mid_walk_leaves_the_next_sync_free_to_catch_up(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url) as box:
        queue = Queue(box.settings.queue_name, connection=box.conn)
        walking, release = threading.Event(), threading.Event()

        def stall() -> None:  # the sync's first GitHub request hangs until the worker is dead
            walking.set()
            release.wait(60)

        with box.worker("killed") as killed:
            wait_for(lambda: catch_up.watermark(box.conn, "acme/rocket"), what="the inbox's watermark")
            lost = box.github.repo.add_issue("Scheduler skips jobs", f"Seen on 2.3:\n\n{TRACEBACK}\n", author="zoe")
            box.github.before(r"^GET /repos/acme/rocket/", stall)
            queue.enqueue(PERIODIC_SYNC)
            wait_for(walking.is_set, timeout=60, what="the sync holding its lock, mid-walk")
            os.killpg(killed.pid, signal.SIGKILL)
            killed.wait(timeout=10)
        release.set()
        syncs: list[Job] = []

        def synced() -> bool:  # the chain's next syncs, as the scheduler would enqueue them
            if not syncs or syncs[-1].get_status(refresh=True) in ("finished", "failed"):
                if syncs and str(syncs[-1].return_value()).startswith("synced:"):
                    return True
                syncs.append(queue.enqueue(PERIODIC_SYNC))
            return False

        with box.worker("after"):
            wait_for(synced, timeout=90, interval=0.5, what="a sync that was not held off by the dead one's lock")
            (card,) = box.cards(timeout=60)
        assert f"#{lost['number']} " in text_of(card)
        assert all(str(j.return_value()).startswith(("synced:", "skipped:")) for j in syncs)
