"""An issue opened while Redis was down (issue 35 item C): its webhook got a 503 and GitHub never redelivers,
so the periodic sync starts its triage; once, by the webhook's claim; never for the history before the inbox."""

from __future__ import annotations

from pathlib import Path

from rq import Queue

from tests.standins.github_webhooks import deliver, payload
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, inbox, text_of
from workers.new_issues import catch_up, claim
from workers.runs.job_names import PERIODIC_SYNC

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def test_the_periodic_sync_starts_triage_for_an_issue_whose_webhook_was_lost_and_never_for_history(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url) as box:
        history = sorted(box.github.repo.issues)
        queue = Queue(box.settings.queue_name, connection=box.conn)
        with box.worker("syncer"):
            wait_for(
                lambda: catch_up.watermark(box.conn, "acme/rocket"), what="the inbox's watermark at the worker's start"
            )
            assert catch_up.watermark(box.conn, "acme/rocket") == max(history)
            lost = box.github.repo.add_issue(TITLE, BODY, author="zoe")  # opened on GitHub; its delivery got a 503
            closed = box.github.repo.add_issue("Opened and closed while Redis was down", "Never mind.", author="zoe")
            box.github.repo.edit_issue(closed["number"], state="closed", state_reason="completed")
            first = queue.enqueue(PERIODIC_SYNC)
            (card,) = box.cards(timeout=60)
            assert f"#{lost['number']} " in text_of(card)
            wait_for(lambda: first.get_status(refresh=True) == "finished", what="the sync job to finish")
            assert f"triage started for #{lost['number']}" in str(first.return_value())
            run_id = claim.run_of(box.conn, "acme/rocket", lost["number"])
            assert run_id is not None
            # the webhook arrives after all (a manual redelivery), and the sync runs again: nothing new
            body = payload(
                "issues-opened", box.github.repo, action="opened", issue=box.github.repo.issues[lost["number"]]
            )
            assert deliver(box.webhook_url, "issues", body)[0] == 202
            again = queue.enqueue(PERIODIC_SYNC)
            wait_for(lambda: again.get_status(refresh=True) == "finished", what="the second sync job")
            assert "triage started" not in str(again.return_value())
            wait_for(
                lambda: box.run(run_id).status == "awaiting_approval", what="the caught-up run to wait on its card"
            )
        assert len(box.messages()) == 1  # one card: the lost issue's, once
        assert claim.run_of(box.conn, "acme/rocket", lost["number"]) == run_id
        assert claim.run_of(box.conn, "acme/rocket", closed["number"]) is None
        assert all(claim.run_of(box.conn, "acme/rocket", n) is None for n in history)  # the history got no card
        assert catch_up.watermark(box.conn, "acme/rocket") == closed["number"]


def test_issues_the_sync_catches_up_over_the_rate_are_named_in_the_digest_not_dropped(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_RATE="1") as box:
        queue = Queue(box.settings.queue_name, connection=box.conn)
        with box.worker("syncer-rate"):
            wait_for(lambda: catch_up.watermark(box.conn, "acme/rocket"), what="the inbox's watermark")
            lost = [
                box.github.repo.add_issue(f"Worker {n} stalls on shutdown", f"Seen on node {n}.", author="zoe")
                for n in range(3)
            ]  # opened while Redis was down: no webhook reached the inbox
            job = queue.enqueue(PERIODIC_SYNC)
            wait_for(lambda: job.get_status(refresh=True) == "finished", what="the sync job to finish")
            wait_for(
                lambda: any("were not triaged" in text_of(m) for m in box.messages()),
                timeout=60,
                what="the digest naming what the rate held back",
            )
        started = [i["number"] for i in lost if claim.run_of(box.conn, "acme/rocket", i["number"])]
        assert len(started) == 1
        [digest] = [text_of(m) for m in box.messages() if "were not triaged" in text_of(m)]
        held = [i["number"] for i in lost if i["number"] not in started]
        assert f"#{held[0]}" in digest, digest
