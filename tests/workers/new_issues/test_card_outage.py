"""A Slack outage while a triage card is posted (issue 35 item B): the card waits it out through scheduled
re-deliveries as answers and approval cards do, within ATLAS_SLACK_OUTAGE_SECONDS, and is posted once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.support.processes import wait_for, worker_process
from tests.support.triage_inbox_harness import TRACEBACK, inbox, text_of
from workers.new_issues import claim

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"
OUTAGE_SECONDS = 10.0  # past the three quick tries a failed job gets (workers/runs/queueing.py)


def test_a_triage_card_waits_out_a_ten_second_slack_outage_and_is_posted_once(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url, ATLAS_SLACK_OUTAGE_SECONDS="120", ATLAS_SLACK_RETRY_CAP="2") as box:
        over = threading.Event()
        box.slack.outage(seconds=600, when=lambda args: not over.is_set())  # every Web API method: Slack is down
        with worker_process(box.env, "outage", "--with-scheduler"):  # the scheduler moves re-deliveries onto the queue
            issue = box.open_issue(TITLE, BODY)
            wait_for(
                lambda: [c for c in box.slack.calls_to("chat.postMessage") if c.status == 503],
                timeout=60,
                what="the card refused by Slack",
            )
            time.sleep(OUTAGE_SECONDS)  # the outage's length, counted from the first refused post
            over.set()
            (card,) = box.cards(timeout=60)
            run_id = claim.run_of(box.conn, "acme/rocket", issue["number"])
            assert run_id is not None
            run = wait_for(
                lambda: (r := box.run(run_id)).surface.outage_since is None and r,
                timeout=30,
                what="the run to record the delivery",
            )
        assert f"#{issue['number']} " in text_of(card)
        assert len(box.messages()) == 1  # posted once, however many tries it took
        assert run.status == "awaiting_approval" and run.surface.undelivered is None
        posts = box.slack.calls_to("chat.postMessage")
        assert [c.status for c in posts].count(200) == 1 and posts[0].status == 503
