"""File as GitHub issue pings nobody: a thread that names `@alice` and `@acme/core` (and an email, and code) is
drafted with those mentions as inline code, the approval card shows exactly that, and Approve POSTs exactly
what the card showed to the GitHub stand-in through githubkit: no live mention in the title or the body."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from atlas.settings import Settings
from tests.standins.slack_api import TEAM
from tests.support.approvals_harness import is_card
from tests.support.triage_inbox_harness import inbox
from tests.tools.github.test_mentions_github import live_mentions
from tests.workers.followup.test_model_draft import ASKER, HELP, _approve, _body_shown, _shown
from workers.followup import filing_claim
from workers.jobs import runs as jobs
from workers.process import runtime
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore

TS = "1700008600.000100"
QUESTION = (
    "<@U0ATLAS> @alice says the scheduler crashes for the @acme/core team on rocket 2.3; mail ops@acme.io.\n"
    "```\nTraceback (most recent call last):\nKeyError: '@retry_policy'\n```"
)


def test_the_card_shows_the_mentions_inert_and_approve_posts_exactly_that(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="") as box:  # no model: the thread's own words
        try:
            runtime.install(runtime.build(Settings.from_env(box.env)))
            source = RunState(
                id="answer-mentions",
                question=QUESTION,
                answer="Add `retry_policy`, as @maria wrote in #3.",
                status="done",
                origin=Origin(kind="slack", team=TEAM, channel=HELP, thread_ts=TS, message_ts=TS, user=ASKER),
            )
            RunStore(box.conn).save(source)
            run_id, _ = filing_claim.start(box.conn, box.settings.queue_name, source, ASKER)
            jobs.continue_run(run_id)
            card = copy.deepcopy(next(m for m in box.slack.thread(HELP, TS) if is_card(m)))
            shown, body = _shown(card), _body_shown(card)
            assert "`@alice`" in body and "`@acme/core`" in body and "ops@acme.io" in body and live_mentions(body) == []
            assert "KeyError: '@retry_policy'" in body  # in code: inert already, left as it was
            [pending] = [
                p for p in box.run(run_id).pending if p.name == "create_issue"
            ]  # beside it: "Add my details to #1"
            title = json.loads(pending.arguments)["title"]
            assert "`@alice`" in title and title in shown  # the card's title is the one filed

            done = _approve(box, box.run(run_id), card, TS)
            [post] = box.github.requests("POST", r"/issues$")
            assert post.body["title"] == title and live_mentions(post.body["title"]) == []
            assert (
                post.body["body"].startswith(body) and live_mentions(post.body["body"]) == []
            )  # exactly what the card showed
            assert done.filing is not None and done.filing.status == "filed"
        finally:
            runtime.install(None)  # type: ignore[arg-type]
