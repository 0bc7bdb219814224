"""What the loop closed posts in a thread, posted once even when the worker dies around the post: a real
`atlas worker` SIGKILLed while the Slack stand-in holds its answer to chat.postMessage (Slack took the
message, or never got it), another worker retrying the job."""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from bot.slack.views.answer import FILE_ISSUE_ACTION
from bot.slack.views.approval import APPROVE_ACTION
from tests.bot.slack.test_issue_loop import ASKER, HELP, _button, _click, _thread
from tests.standins.github_webhooks import deliver, payload
from tests.standins.responses_api import ScriptedModel, reply_text
from tests.standins.slack_api import TEAM
from tests.standins.slack_events import mention
from tests.support.approvals_harness import is_card, pending_id
from tests.support.kills import dies_after
from tests.support.processes import wait_for, worker_process
from tests.support.triage_inbox_harness import MAINTAINER, Inbox, inbox
from workers.approvals import ledger
from workers.followup import subscriptions as subs
from workers.followup.filing import CALL_ID
from workers.runs.state import Origin
from workers.runs.store import RunStore


def _filed(box: Inbox, thread: str) -> list[dict[str, Any]]:
    return [m for m in _thread(box, thread) if m.get("text", "").startswith("Filed #")]


@pytest.mark.parametrize("slack_took_it", [True, False], ids=["slack-took-it", "slack-never-got-it"])
def test_filed_is_posted_once_when_the_worker_dies_around_its_post(
    slack_took_it: bool, tmp_path: Path, redis_url: str
) -> None:
    with ScriptedModel() as model, inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", **model.env()) as box:
        model.script(reply_text("That KeyError comes from a config written before 2.3: add `retry_policy` to it."))
        thread = "1700008000.000100"
        held = box.slack.hold(
            "chat.postMessage", lambda args: str(args.get("text", "")).startswith("Filed #"), processed=slack_took_it
        )
        with box.worker("filer-a") as worker_a:
            assert (
                box.send.event(
                    mention(
                        "The scheduler crashes on startup after upgrading to 2.3", channel=HELP, user=ASKER, ts=thread
                    )
                ).status
                == 200
            )
            answer = wait_for(
                lambda: next((m for m in _thread(box, thread) if _button(m, FILE_ISSUE_ACTION)), None),
                timeout=60,
                what="the answer with its File as GitHub issue button",
            )
            assert (
                _click(box, answer, FILE_ISSUE_ACTION, _button(answer, FILE_ISSUE_ACTION) or "", ASKER, thread) == 200
            )
            card = wait_for(
                lambda: next((m for m in _thread(box, thread) if is_card(m)), None), timeout=60, what="the draft's card"
            )
            assert _click(box, card, APPROVE_ACTION, pending_id(card), MAINTAINER, thread) == 200
            assert held.reached.wait(60), "worker A never posted Filed #N"
            with box.worker("filer-b"):  # takes the job over once A's lease lapses
                os.killpg(worker_a.pid, signal.SIGKILL)
                worker_a.wait(timeout=10)
                held.release.set()
                run_id = pending_id(card).split(".")[0]
                wait_for(lambda: RunStore(box.conn).load(run_id).filing.told, timeout=60, what="the retried job")  # type: ignore[union-attr]
                [filed] = _filed(box, thread)  # once: the retry found the first (or posted the one Slack never got)
        run = RunStore(box.conn).load(run_id)
        assert (
            run.filing is not None
            and run.filing.status == "filed"
            and filed["text"].startswith(f"Filed #{run.filing.number} ")
        )
        assert len(box.github.requests("POST", r"/issues$")) == 1
        assert (ledger.entry_of(box.conn, run_id, CALL_ID) or {}).get("state") == "done"


def test_a_close_notice_claimed_by_a_killed_worker_is_posted_by_the_retried_job(tmp_path: Path, redis_url: str) -> None:
    """Killed after claiming the notice and before Slack got it: RQ's retry of the webhook job (30 s later, as
    bot/github/webhook.py schedules it; the test moves it to now) resumes the claim and posts it, once."""
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="") as box:
        thread = "1700009000.000100"
        subs.subscribe(
            box.conn,
            "acme/rocket",
            2,
            Origin(kind="slack", channel=HELP, thread_ts=thread, team=TEAM),
            "run-x",
            "filed",
        )
        held = box.slack.hold("chat.postMessage", lambda args: "was closed by" in str(args.get("text", "")))
        with box.worker("notice-a") as worker_a:
            closed = box.github.repo.edit_issue(2, state="closed", state_reason="completed")
            assert (
                deliver(
                    box.webhook_url,
                    "issues",
                    payload("issues-closed", box.github.repo, action="closed", issue=closed),
                    delivery="close-kill",
                )[0]
                == 202
            )
            assert held.reached.wait(60), "worker A never posted the notice"
            (job_id,) = Queue("atlas", connection=box.conn).started_job_registry.get_job_ids()
            with worker_process(box.env, "notice-b", "--with-scheduler"):
                os.killpg(worker_a.pid, signal.SIGKILL)  # the notice claimed, Slack never got it
                worker_a.wait(timeout=10)
                held.release.set()
                scheduled = ScheduledJobRegistry("atlas", connection=box.conn)
                wait_for(lambda: job_id in scheduled.get_job_ids(), timeout=30, what="RQ's retry of the abandoned job")
                scheduled.schedule(Job.fetch(job_id, connection=box.conn), datetime.now(UTC))  # its 30 s have passed
                wait_for(
                    lambda: Job.fetch(job_id, connection=box.conn).get_status() == "finished",
                    timeout=30,
                    what="the retried job",
                )
        notices = [m for m in _thread(box, thread) if "was closed by" in m.get("text", "")]
        assert len(notices) == 1 and notices[0]["text"].startswith("#2 ")


@pytest.mark.parametrize("kind", ["slack", "discord"])
def test_a_notice_the_platform_took_before_the_worker_died_is_found_not_posted_again(kind: str, redis_url: str) -> None:
    """The retried job (the same RQ job, so the same claim) looks in the thread first: on Slack by the note's
    metadata marker, on Discord (past the nonce's few minutes) by its text."""
    from slack_sdk import WebClient

    from bot.discord.rest import DiscordREST
    from bot.discord.surface import DiscordReporter
    from bot.slack.surface import SlackReporter
    from tests.standins.discord_api import DiscordAPI
    from tests.standins.slack_api import SlackAPI
    from tests.workers.followup.test_notices import A, B, Parts, _closed
    from workers.followup import notices

    conn = redis.Redis.from_url(redis_url)
    with DiscordAPI() as discord, SlackAPI() as slack:
        if kind == "slack":
            client = WebClient(token=slack.token, base_url=slack.base_url)
            platform: Any = SlackReporter(client, client, RunStore(conn))
            target, method, place = client, "chat_postMessage", A
        else:
            env = discord.env()
            platform = DiscordReporter(DiscordREST(env["DISCORD_BOT_TOKEN"], env["DISCORD_API_URL"]), RunStore(conn))
            target, method, place = platform.rest, "create_message", B
        subs.subscribe(conn, "demo", 12, place, "run-a", "filed")
        rt = Parts(conn, platform)
        with dies_after(target, method):  # the platform has the notice; the worker died before recording it
            notices.on_event(rt, "issues", "closed", _closed(12))  # type: ignore[arg-type]
        discord.advance(15 * 60)  # the retry comes long after Discord's nonce lapsed
        assert "1 thread(s) told" in notices.on_event(rt, "issues", "closed", _closed(12))  # type: ignore[arg-type]  # RQ's retry
        assert notices.on_event(rt, "issues", "closed", _closed(12)) == ""  # type: ignore[arg-type]  # and again: posted
        found = (
            [m for m in slack.messages.values() if m.get("thread_ts") == "1.1"]
            if kind == "slack"
            else discord.channel("77")
        )
        assert len(found) == 1 and "was closed by @maria" in found[0].get("text", found[0].get("content", ""))
        assert not discord.problems
