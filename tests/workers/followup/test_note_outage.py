"""The thread's "Filed #N" note through a Slack outage: the issue is filed while Slack answers 503 to
chat.postMessage, the note is handed to a scheduled re-delivery (workers/runs/redelivery.py) with backoff
within ATLAS_SLACK_OUTAGE_SECONDS instead of being dropped, and appears exactly once when Slack is back; with no
RQ scheduler running the job fails instead and RQ's retry of it posts the note, once."""

from __future__ import annotations

import copy
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from atlas.settings import Settings
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins.slack_api import TEAM
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import is_card, pending_id
from tests.support.processes import wait_for, worker_process
from tests.support.triage_inbox_harness import MAINTAINER, TRACEBACK, Inbox, inbox
from workers.approvals import records as approvals
from workers.errors import NoticeUndelivered
from workers.followup import filing_claim
from workers.jobs import runs as jobs
from workers.process import runtime
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore

HELP = "C0HELP"
ASKER = "U0ASKER"
THREAD = "1700008500.000100"


def _filed(box: Inbox) -> list[dict[str, Any]]:
    return [m for m in box.slack.thread(HELP, THREAD) if str(m.get("text", "")).startswith("Filed #")]


def _refused(box: Inbox) -> list[Any]:
    return [
        c
        for c in box.slack.calls_to("chat.postMessage")
        if c.status == 503 and str(c.args.get("text", "")).startswith("Filed #")
    ]


def _card(box: Inbox) -> str:
    """An answered thread and the filing run a click on "File as GitHub issue" queues (its id)."""
    source = RunState(
        id="answer-note",
        question=f"The scheduler crashes on startup after upgrading to 2.3:\n{TRACEBACK}",
        answer="Add `retry_policy` to the config.",
        status="done",
        origin=Origin(kind="slack", team=TEAM, channel=HELP, thread_ts=THREAD, message_ts=THREAD, user=ASKER),
    )
    RunStore(box.conn).save(source)
    run_id, started = filing_claim.start(box.conn, box.settings.queue_name, source, ASKER)
    assert started
    return run_id


def _approve(box: Inbox, card: dict[str, Any]) -> None:
    card = copy.deepcopy(card)  # the stand-in updates the message in place once decided
    decision = pending_id(card)
    body = block_action(
        APPROVE_ACTION, decision, user=MAINTAINER, channel=HELP, message_ts=card["ts"], thread_ts=THREAD
    )
    body["user"]["username"] = "maint"
    body["message"] = {"ts": card["ts"], "thread_ts": THREAD, "blocks": card["blocks"]}
    assert box.send.interaction(body).status == 200
    wait_for(lambda: (a := approvals.load(box.conn, decision)) is not None and a.decided, what="the decision")


def test_filed_waits_out_a_slack_outage_and_appears_once(tmp_path: Path, redis_url: str) -> None:
    over = threading.Event()
    with (
        inbox(
            tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", ATLAS_SLACK_OUTAGE_SECONDS="120", ATLAS_SLACK_RETRY_CAP="1"
        ) as box,
        worker_process(box.env, "note-w", "--with-scheduler"),
    ):
        run_id = _card(box)
        card = wait_for(
            lambda: next((m for m in box.slack.thread(HELP, THREAD) if is_card(m)), None),
            timeout=60,
            what="the draft's card",
        )
        box.slack.outage(
            "chat.postMessage",
            seconds=600,
            when=lambda args: str(args.get("text", "")).startswith("Filed #") and not over.is_set(),
        )
        _approve(box, card)

        wait_for(lambda: len(_refused(box)) >= 2, timeout=30, what="the note tried again while Slack is down")
        run = box.run(run_id)
        assert (
            run.filing is not None and run.filing.status == "filed" and not run.filing.told
        )  # filed, the thread not told yet
        assert len(box.github.requests("POST", r"/issues$")) == 1
        over.set()
        wait_for(lambda: _filed(box), timeout=30, what="the note once Slack is back")
        done = wait_for(
            lambda: (r := box.run(run_id)).filing is not None and r.filing.told and r.filing.note_ts and r,
            what="the note recorded",
        )
        assert done.filing is not None and done.filing.note_ts == _filed(box)[0]["ts"]
    [note] = _filed(box)
    assert note["text"].startswith(f"Filed #{done.filing.number}")
    assert len(box.github.requests("POST", r"/issues$")) == 1  # the retries posted a note, never filed again


def test_with_no_scheduler_the_job_fails_for_rq_to_retry_and_the_retry_posts_the_note_once(
    tmp_path: Path, redis_url: str
) -> None:
    over = threading.Event()
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="") as box:
        try:
            runtime.install(
                runtime.build(Settings.from_env(box.env))
            )  # jobs run here; nothing holds the scheduler's lock
            run_id = _card(box)
            jobs.continue_run(run_id)  # the draft and its card
            card = wait_for(
                lambda: next((m for m in box.slack.thread(HELP, THREAD) if is_card(m)), None), what="the draft's card"
            )
            box.slack.outage(
                "chat.postMessage",
                seconds=600,
                when=lambda args: str(args.get("text", "")).startswith("Filed #") and not over.is_set(),
            )
            _approve(box, card)
            with pytest.raises(NoticeUndelivered):
                jobs.continue_run(run_id)  # filed; the note refused: the job fails, RQ retries it
            run = box.run(run_id)
            assert (
                run.filing is not None
                and run.filing.status == "filed"
                and not run.filing.told
                and len(_refused(box)) == 1
            )
            over.set()
            assert jobs.continue_run(run_id) == "done"  # RQ's retry of the same job
            assert jobs.continue_run(run_id) == "done"  # and any later one posts nothing more
            [note] = _filed(box)
            assert box.run(run_id).filing.note_ts == note["ts"]  # type: ignore[union-attr]
            assert len(box.github.requests("POST", r"/issues$")) == 1
        finally:
            runtime.install(None)  # type: ignore[arg-type]


def test_past_the_outage_budget_the_note_is_given_up_with_a_log_line(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", ATLAS_SLACK_OUTAGE_SECONDS="60") as box:
        try:
            runtime.install(runtime.build(Settings.from_env(box.env)))
            run_id = _card(box)
            jobs.continue_run(run_id)
            card = wait_for(
                lambda: next((m for m in box.slack.thread(HELP, THREAD) if is_card(m)), None), what="the draft's card"
            )
            box.slack.outage(
                "chat.postMessage", seconds=600, when=lambda args: str(args.get("text", "")).startswith("Filed #")
            )
            _approve(box, card)
            with pytest.raises(NoticeUndelivered):
                jobs.continue_run(run_id)
            run = box.run(run_id)
            assert run.filing is not None and run.filing.note_failed_since and run.filing.note_tries == 1
            run.filing.note_failed_since -= 61  # Slack has refused the note for longer than ATLAS_SLACK_OUTAGE_SECONDS
            RunStore(box.conn).save(run)
            caplog.set_level(logging.ERROR, logger="atlas.followup")
            assert jobs.continue_run(run_id) == "done"  # ends normally: nothing more to retry
            [said] = [r.getMessage() for r in caplog.records if run_id in r.getMessage()]
            assert "not told of the filing" in said and f"atlas runs show {run_id}" in said
            assert _filed(box) == [] and len(_refused(box)) == 2
        finally:
            runtime.install(None)  # type: ignore[arg-type]
