"""An approved action that may or may not have happened: the reporter tells the run's Slack thread once, for the one
who decided to check at the issue's page, against the Slack stand-in (the notice's view: test_views.py)."""

from __future__ import annotations

import redis

from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.slack_reporter_harness import CHANNEL, THREAD, make_reporter, make_run
from workers.approvals.records import Approval


def test_the_in_doubt_notice_goes_to_the_runs_thread_for_the_decider(
    slack_api: SlackAPI,  # noqa: F811
    redis_conn: redis.Redis,
) -> None:
    reporter, run = make_reporter(slack_api, redis_conn), make_run(redis_conn)
    approval = Approval(
        pending_id="p1",
        run_id=run.id,
        call_id="c1",
        name="close_issue",
        arguments="{}",
        step=1,
        issue="12",
        status="approved",
        decider="U0BOB",
        channel=CHANNEL,
    )
    reporter.notice_in_doubt(run, approval, "https://git.example/issues/12")
    [note] = slack_api.thread(CHANNEL, THREAD)
    assert "`close_issue` on #12" in note["text"] and "<@U0BOB>" in note["text"] and "<@U0ALICE>" not in note["text"]
    assert "(<https://git.example/issues/12|#12>)" in note["text"]
