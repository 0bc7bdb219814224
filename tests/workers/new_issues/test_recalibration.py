"""Calibration after each sync (issue 36 item 2), through the real jobs: the periodic sync and a webhook delivery
that closes an issue each queue the repository's recalibration, a real worker runs it on the grown history (the
newly closed issues counted), and a burst of deliveries queues one job, not one each."""

from __future__ import annotations

import json
from pathlib import Path

from rq import Queue
from rq.job import Job

from datasets import derived
from tests.standins.github_webhooks import deliver, payload, sent_by
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import Inbox, inbox
from workers.runs.job_names import PERIODIC_SYNC
from workers.triage import calibration_store, recalibration


def _recalibrated(conn: object, closed: int) -> str:
    """The recalibration job's result once it has counted `closed` closed issues."""
    expected = f"recalibrated acme/rocket on {closed} closed issues"

    def done() -> str | None:
        try:
            job = Job.fetch(recalibration.job_id("acme/rocket"), connection=conn)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - not queued yet
            return None
        result = str(job.return_value() or "") if job.get_status(refresh=True) == "finished" else ""
        return result if expected in result else None

    return wait_for(done, what=f"a recalibration on {closed} closed issues", timeout=90)


def _kept(box: Inbox) -> set[int]:
    """The issues whose replays are kept on disk for the next worker (workers/triage/calibration_store.py)."""
    path = derived.root(box.settings.data_dir, box.settings.home) / "issues" / calibration_store.FILE
    return {int(n) for n in json.loads(path.read_text(encoding="utf-8"))["raw"]} if path.is_file() else set()


def test_a_sync_and_a_closing_webhook_each_recalibrate_the_repository_in_a_worker(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url) as box:
        repo = box.github.repo
        queue = Queue(box.settings.queue_name, connection=box.conn)
        closed_before = sum(1 for i in repo.issues.values() if i["state"] == "closed")
        with box.worker("recalibrator"):
            repo.edit_issue(2, state="closed", state_reason="completed")  # closed on GitHub; only a sync tells
            sync = queue.enqueue(PERIODIC_SYNC)
            wait_for(lambda: sync.get_status(refresh=True) == "finished", what="the sync job", timeout=90)
            assert "recalibration queued" in str(sync.return_value())
            shown = _recalibrated(box.conn, closed_before + 1)
            assert "decisions" in shown and 2 in _kept(box)

            closing = payload(
                "issues-closed",
                repo,
                action="closed",
                issue=repo.edit_issue(3, state="closed", state_reason="completed"),
            )
            assert deliver(box.webhook_url, "issues", sent_by(closing, "maya"))[0] == 202
            _recalibrated(box.conn, closed_before + 2)
            assert {2, 3} <= _kept(box)  # a grown engine's replays are kept too, for a worker started after it

        # a second ask while one is queued (no worker on this queue) queues nothing more
        assert recalibration.ask(box.conn, "q-burst", "acme/rocket") == recalibration.QUEUED
        assert "already queued" in recalibration.ask(box.conn, "q-burst", "acme/rocket")
        assert Queue("q-burst", connection=box.conn).count == 1
