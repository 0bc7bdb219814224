"""What the loop closed posts in a thread, posted once even when the worker dies around the post: a real
`atlas worker` SIGKILLed while the Slack stand-in holds its answer to chat.postMessage (Slack took the
message, or never got it), another worker retrying the job."""

from __future__ import annotations

import copy
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from bot.slack.cards import APPROVE_ACTION
from bot.slack.render import FILE_ISSUE_ACTION
from tests.standins.responses_api import ScriptedModel, reply_text
from tests.standins.slack_events import block_action, mention
from tests.support.approvals_harness import is_card, pending_id
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import MAINTAINER, Inbox, inbox
from workers.approvals import ledger
from workers.followup.filing import CALL_ID
from workers.runs.store import RunStore

HELP = "C0HELP"
ASKER = "U0ASKER"


def _thread(box: Inbox, ts: str) -> list[dict[str, Any]]:
    return copy.deepcopy(box.slack.thread(HELP, ts))


def _button(message: dict[str, Any], action_id: str) -> str | None:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or [] if block.get("type") == "actions" else []:
            if element.get("action_id") == action_id:
                return str(element["value"])
    return None


def _click(box: Inbox, message: dict[str, Any], action_id: str, value: str, user: str, thread: str) -> None:
    body = block_action(action_id, value, user=user, channel=HELP, message_ts=message["ts"], thread_ts=thread)
    body["user"]["username"] = user.lower().removeprefix("u0")
    body["message"] = {"ts": message["ts"], "thread_ts": thread, "blocks": message["blocks"]}
    assert box.send.interaction(body).status == 200


def _filed(box: Inbox, thread: str) -> list[dict[str, Any]]:
    return [m for m in _thread(box, thread) if m.get("text", "").startswith("Filed #")]


@pytest.mark.parametrize("slack_took_it", [True, False], ids=["slack-took-it", "slack-never-got-it"])
def test_filed_is_posted_once_when_the_worker_dies_around_its_post(slack_took_it: bool, tmp_path: Path, redis_url: str) -> None:
    with ScriptedModel() as model, inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", **model.env()) as box:
        model.script(reply_text("That KeyError comes from a config written before 2.3: add `retry_policy` to it."))
        thread = "1700008000.000100"
        held = box.slack.hold("chat.postMessage", lambda args: str(args.get("text", "")).startswith("Filed #"), processed=slack_took_it)
        with box.worker("filer-a") as worker_a:
            assert box.send.event(mention("The scheduler crashes on startup after upgrading to 2.3", channel=HELP, user=ASKER,
                                          ts=thread)).status == 200
            answer = wait_for(lambda: next((m for m in _thread(box, thread) if _button(m, FILE_ISSUE_ACTION)), None),
                              timeout=60, what="the answer with its File as GitHub issue button")
            _click(box, answer, FILE_ISSUE_ACTION, _button(answer, FILE_ISSUE_ACTION) or "", ASKER, thread)
            card = wait_for(lambda: next((m for m in _thread(box, thread) if is_card(m)), None), timeout=60, what="the draft's card")
            _click(box, card, APPROVE_ACTION, pending_id(card), MAINTAINER, thread)
            assert held.reached.wait(60), "worker A never posted Filed #N"
            with box.worker("filer-b"):  # takes the job over once A's lease lapses
                os.killpg(worker_a.pid, signal.SIGKILL)
                worker_a.wait(timeout=10)
                held.release.set()
                run_id = pending_id(card).split(".")[0]
                wait_for(lambda: RunStore(box.conn).load(run_id).filing.told, timeout=60, what="the retried job")  # type: ignore[union-attr]
                [filed] = _filed(box, thread)  # once: the retry found the first (or posted the one Slack never got)
        run = RunStore(box.conn).load(run_id)
        assert run.filing is not None and run.filing.status == "filed" and filed["text"].startswith(f"Filed #{run.filing.number} ")
        assert len(box.github.requests("POST", r"/issues$")) == 1
        assert (ledger.entry_of(box.conn, run_id, CALL_ID) or {}).get("state") == "done"
