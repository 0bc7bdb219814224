"""A Slack solved thread's entry names nobody who wrote in the thread (issue 39 item 4), not only its asker and
marker: the worker reads the thread's authors (conversations.replies, bot messages skipped) and how Slack names
each (users.info), on loopback with a real worker and Redis. A person Slack no longer knows fails no draft."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from slack_sdk import WebClient

from bot.slack.participants import names
from bot.slack.views.answer import MARK_ANSWER_ACTION
from tests.standins.responses_api import ScriptedModel, reply_error, reply_text
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import mention
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import is_card
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import inbox

HELP, ASKER, PRIYA, GONE = "C0HELP", "U0ASKER", "U0PRIYA", "U0GONE"
THREAD = "1700009500.000100"
ANSWER = "As Priya Raman found, rocket reads `ROCKET_REDIS_URL`: set it to `redis://cache:6379/0` before the worker."


def _people(slack: SlackAPI) -> None:
    slack.add_user(ASKER)
    slack.users[ASKER]["real_name"] = "Maria Lopez"
    slack.add_user(PRIYA)
    slack.users[PRIYA].update(real_name="Priya Raman", profile={"display_name": "Priya", "real_name": "Priya Raman"})


def _button(message: dict[str, Any]) -> str:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or [] if block.get("type") == "actions" else []:
            if element.get("action_id") == MARK_ANSWER_ACTION:
                return str(element["value"])
    return ""


def test_a_third_person_named_in_the_answer_is_not_named_in_the_entry(tmp_path: Path, redis_url: str) -> None:
    with (
        ScriptedModel() as model,
        inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", **model.env()) as box,
        box.worker("names-w1"),
    ):
        _people(box.slack)
        model.script(reply_text(ANSWER), reply_error(400, message="Invalid request (scripted)."))
        question = "how do I point rocket at a remote redis server?"
        box.slack.said(HELP, THREAD, ASKER, f"<@UATLAS> {question}")
        box.slack.said(HELP, "1700009500.000200", PRIYA, "Priya Raman here: it is ROCKET_REDIS_URL", THREAD)
        box.slack.said(HELP, "1700009500.000300", GONE, "same problem here", THREAD)  # users.info: user_not_found
        assert box.send.event(mention(question, channel=HELP, user=ASKER, ts=THREAD)).status == 200
        answer = wait_for(
            lambda: next((m for m in box.slack.thread(HELP, THREAD) if _button(m)), None), timeout=60, what="answer"
        )
        body = block_action(
            MARK_ANSWER_ACTION, _button(answer), user=ASKER, channel=HELP, message_ts=answer["ts"], thread_ts=THREAD
        )
        body["message"] = {"ts": answer["ts"], "thread_ts": THREAD, "blocks": answer["blocks"]}
        assert box.send.interaction(body).status == 200
        [card] = wait_for(
            lambda: [m for m in copy.deepcopy(box.slack.thread(HELP, THREAD)) if is_card(m)], timeout=60, what="card"
        )
        looked_up = {c.args.get("user") for c in box.slack.calls_to("users.info")}
    shown = json.dumps(card["blocks"], ensure_ascii=False)
    assert "rocket reads `ROCKET_REDIS_URL`" in shown and "point rocket at a remote redis server" in shown
    assert "Priya" not in shown and "Raman" not in shown
    assert {ASKER, PRIYA, GONE} <= looked_up and "UATLAS" not in looked_up  # the bot's own messages are skipped
    model.assert_done()


def test_the_thread_is_read_once_and_at_most_ten_people_are_looked_up() -> None:
    with SlackAPI() as slack:
        _people(slack)
        for i in range(12):
            slack.add_user(f"U0P{i:02d}")
            slack.said(HELP, f"1700009600.{i + 1:06d}", f"U0P{i:02d}", "me too", "1700009600.000001")
        client = WebClient(token=slack.token, base_url=slack.base_url)
        found = names(client, HELP, "1700009600.000001", [PRIYA, None])
        nothing = names(client, HELP, "1700009999.000001", [PRIYA])  # thread_not_found: the askers' names only
        asked = [c.args.get("user") for c in slack.calls_to("users.info")]
    assert found == ["u0priya", "Priya Raman", "Priya", *(f"u0p{i:02d}" for i in range(9))]
    assert len(asked) == 10 + 1 and asked[0] == PRIYA and "U0P09" not in asked
    assert len(slack.calls_to("conversations.replies")) == 2  # one page a thread
    assert nothing == ["u0priya", "Priya Raman", "Priya"]
