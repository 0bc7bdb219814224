"""Before filing from chat (issue 36 item 7): the "File as GitHub issue" card shows the open issues that may be the
same, by the triage engine's duplicate ranking, with score and why, through a real worker, Slack's and GitHub's
stand-ins; closed issues are never offered. "Add my details to #N instead" is its own card: approved, it comments
once on #N with the thread's link, files nothing, expires the new issue's card and subscribes the thread to #N."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from bot.slack import wording
from bot.slack.views.answer import FILE_ISSUE_ACTION
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins.github_repo import Repo
from tests.standins.slack_events import mention
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import is_card, pending_id
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import MAINTAINER, TRACEBACK, Inbox, inbox
from workers.approvals import records as approvals
from workers.followup import subscriptions
from workers.runs.store import RunStore

HELP = "C0HELP"
ASKER = "U0ASKER"


def _also_closed(repo: Repo) -> None:
    """A closed report of the same crash: it must not be offered as a place to add details."""
    issue = repo.add_issue(
        "Scheduler crashes with KeyError 'retry_policy' after upgrade", f"Same here on 2.3:\n\n{TRACEBACK}\n"
    )
    repo.edit_issue(issue["number"], state="closed", state_reason="completed")


def _thread(box: Inbox, ts: str) -> list[dict[str, Any]]:
    return copy.deepcopy(box.slack.thread(HELP, ts))


def _button(message: dict[str, Any]) -> str | None:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or [] if block.get("type") == "actions" else []:
            if element.get("action_id") == FILE_ISSUE_ACTION:
                return str(element["value"])
    return None


def test_the_draft_card_shows_the_open_issues_that_may_be_the_same(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url, prepare=_also_closed, ATLAS_TRIAGE_CHANNEL="") as box, box.worker("similar-w1"):
        thread = "1700007100.000100"
        question = f"The scheduler crashes on startup after upgrading to rocket 2.3:\n{TRACEBACK}"
        assert box.send.event(mention(question, channel=HELP, user=ASKER, ts=thread)).status == 200
        answer = wait_for(
            lambda: next((m for m in _thread(box, thread) if _button(m)), None), timeout=90, what="the answer"
        )
        body = block_action(
            FILE_ISSUE_ACTION,
            _button(answer) or "",
            user=ASKER,
            channel=HELP,
            message_ts=answer["ts"],
            thread_ts=thread,
        )
        body["message"] = {"ts": answer["ts"], "thread_ts": thread, "blocks": answer["blocks"]}
        assert box.send.interaction(body).status == 200
        card = wait_for(
            lambda: next((m for m in _thread(box, thread) if is_card(m)), None), timeout=90, what="the draft's card"
        )
        shown = json.dumps(card["blocks"], ensure_ascii=False)
        assert wording.APPROVAL_SIMILAR in shown
        assert "|#1 Scheduler crashes on startup with KeyError 'retry_policy'>: score 0." in shown and "Why: " in shown
        closed = max(box.github.repo.issues)
        assert f"#{closed} " not in shown  # closed: not offered
        assert box.github.requests("POST", r"/issues$") == []  # nothing filed before a click
        instead = wait_for(
            lambda: next(
                (m for m in _thread(box, thread) if is_card(m) and "Add my details to #1 instead" in json.dumps(m)),
                None,
            ),
            timeout=60,
            what="the Add my details card",
        )
        assert box.github.requests("POST", r"/comments$") == []
        click = block_action(
            APPROVE_ACTION,
            pending_id(instead),
            user=MAINTAINER,
            channel=HELP,
            message_ts=instead["ts"],
            thread_ts=thread,
        )
        click["user"]["username"] = "maint"
        click["message"] = {"ts": instead["ts"], "thread_ts": thread, "blocks": instead["blocks"]}
        assert box.send.interaction(click).status == 200
        [comment] = wait_for(lambda: box.github.requests("POST", r"/comments$"), what="the comment on #1", timeout=90)
        assert comment.path == "/repos/acme/rocket/issues/1/comments"
        assert f"https://atlas-test.slack.com/archives/{HELP}/p{thread.replace('.', '')}" in comment.body["body"]
        wait_for(
            lambda: any("Added to #1 instead" in m.get("text", "") for m in _thread(box, thread)),
            what="the thread told",
            timeout=90,
        )
        run_id = pending_id(card).split(".")[0]
        assert subscriptions.for_thread(box.conn, subscriptions.place_of(RunStore(box.conn).load(run_id))) == [
            ("acme/rocket", 1)
        ]
        assert box.github.requests("POST", r"/issues$") == []  # no new issue
        assert approvals.load(box.conn, pending_id(card)).status == "expired"  # type: ignore[union-attr]
