"""Solved threads become knowledge, end to end on loopback (issue 39): a Slack answer by a real worker, "Mark as
answer" pressed under it (twice, and a maintainer's ✅ too: one card), the entry drafted from the thread's words
after the model's draft call fails, nobody in the thread named in it; an approver's Approve keeps it, and a later
run's search_history finds it, cited as a solved thread. A ✅ alone starts the same in another thread; a
non-maintainer's ✅ and a private channel's thread start nothing; `atlas knowledge forget` deletes an entry."""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from atlas.cli.main import main as atlas
from bot.slack.views.answer import MARK_ANSWER_ACTION
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins.responses_api import Call, ScriptedModel, reply_calls, reply_error, reply_text
from tests.standins.slack_events import mention, reaction_added
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import is_card, outputs_sent, pending_id
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import MAINTAINER, Inbox, inbox
from workers.knowledge import entries

HELP, PRIVATE = "C0HELP", "C0SECRET"
ASKER, PASSERBY = "U0ASKER", "U0PASSER"
ANSWER = "Set `ROCKET_REDIS_URL=redis://cache:6379/0` before starting the worker: https://rocket.example/docs/redis"


def _thread(box: Inbox, channel: str, ts: str) -> list[dict[str, Any]]:
    return copy.deepcopy(box.slack.thread(channel, ts))


def _answer(box: Inbox, channel: str, ts: str) -> dict[str, Any]:
    return wait_for(
        lambda: next((m for m in _thread(box, channel, ts) if _value(m, MARK_ANSWER_ACTION)), None),
        timeout=60,
        what="the answer with its Mark as answer button",
    )


def _value(message: dict[str, Any], action_id: str) -> str | None:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or [] if block.get("type") == "actions" else []:
            if element.get("action_id") == action_id:
                return str(element["value"])
    return None


def _click(
    box: Inbox, channel: str, message: dict[str, Any], action_id: str, value: str, user: str, thread: str
) -> int:
    body = block_action(action_id, value, user=user, channel=channel, message_ts=message["ts"], thread_ts=thread)
    body["message"] = {"ts": message["ts"], "thread_ts": thread, "blocks": message["blocks"]}
    return box.send.interaction(body).status


def _cards(box: Inbox, channel: str, ts: str) -> list[dict[str, Any]]:
    return [m for m in _thread(box, channel, ts) if is_card(m)]


def test_a_marked_answer_becomes_an_approved_anonymous_searchable_entry(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        ScriptedModel() as model,
        inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", **model.env()) as box,
        box.worker("solved-w1"),
    ):
        box.slack.add_user(ASKER)
        box.slack.users[ASKER]["real_name"] = "Maria Lopez"
        box.slack.add_user(PASSERBY)
        box.slack.private.add(PRIVATE)
        model.script(
            reply_text(ANSWER),
            reply_error(400, message="Invalid request (scripted)."),  # the entry's model call fails
            reply_text("Use `rocket worker --concurrency 4`."),
            reply_error(400, message="Invalid request (scripted)."),
            reply_text("Private answer."),
            reply_calls([Call("search_history", {"query": "remote redis server", "kind": None, "limit": 5}, "call_h")]),
            reply_text("A solved thread says: set ROCKET_REDIS_URL."),
        )
        thread = "1700009000.000100"
        question = "Hi all, how do I point rocket at a remote redis server, as Maria Lopez asked @sam?"
        assert box.send.event(mention(question, channel=HELP, user=ASKER, ts=thread)).status == 200
        answer = _answer(box, HELP, thread)
        run_id = _value(answer, MARK_ANSWER_ACTION)
        assert run_id
        assert _click(box, HELP, answer, MARK_ANSWER_ACTION, run_id, ASKER, thread) == 200
        assert _click(box, HELP, answer, MARK_ANSWER_ACTION, run_id, ASKER, thread) == 200  # a double click
        assert (
            box.send.event(reaction_added("white_check_mark", channel=HELP, ts=answer["ts"], user=MAINTAINER)).status
            == 200
        )
        [card] = wait_for(lambda: _cards(box, HELP, thread), timeout=60, what="the knowledge card")
        shown = json.dumps(card["blocks"], ensure_ascii=False)
        assert "point rocket at a remote redis server" in shown and "ROCKET_REDIS_URL=redis://cache:6379/0" in shown
        assert "Maria" not in shown and "Lopez" not in shown and "@sam" not in shown
        assert f"https://atlas-test.slack.com/archives/{HELP}/p{thread.replace('.', '')}" in shown
        assert entries.listed(box.conn) == []  # nothing is kept before the click
        assert _click(box, HELP, card, APPROVE_ACTION, pending_id(card), MAINTAINER, thread) == 200
        [entry] = wait_for(lambda: entries.listed(box.conn), timeout=60, what="the entry kept")
        assert entry.links == ("https://rocket.example/docs/redis",) and "Maria" not in entry.question + entry.answer
        kept = f"Kept as knowledge {entry.id}"  # the card is edited after the entry is kept: wait for the edit
        wait_for(lambda: kept in json.dumps([m.get("blocks") for m in _thread(box, HELP, thread)]), what="the card")
        [decided] = [
            m for m in _thread(box, HELP, thread) if "solved thread as knowledge" in json.dumps(m.get("blocks"))
        ]
        assert kept in json.dumps(decided["blocks"])  # one card, now showing the entry kept

        other = "1700009100.000100"  # a maintainer's ✅ alone marks a thread solved; a passer-by's does not
        assert box.send.event(mention("how many workers per core?", channel=HELP, user=ASKER, ts=other)).status == 200
        reply = _answer(box, HELP, other)
        assert (
            box.send.event(reaction_added("white_check_mark", channel=HELP, ts=reply["ts"], user=PASSERBY)).status
            == 200
        )
        assert (
            box.send.event(reaction_added("white_check_mark", channel=HELP, ts=reply["ts"], user=MAINTAINER)).status
            == 200
        )
        [second] = wait_for(lambda: _cards(box, HELP, other), timeout=60, what="the card of the ✅")

        secret = "1700009200.000100"
        assert box.send.event(mention("a private question", channel=PRIVATE, user=ASKER, ts=secret)).status == 200
        hidden = _answer(box, PRIVATE, secret)
        with caplog.at_level(logging.INFO, logger="atlas.bot.slack.solved"):
            assert (
                box.send.event(
                    reaction_added("white_check_mark", channel=PRIVATE, ts=hidden["ts"], user=MAINTAINER)
                ).status
                == 200
            )
            wait_for(lambda: "is not a public channel" in caplog.text, what="the private channel refused")

        asked = "1700009300.000100"
        assert (
            box.send.event(
                mention("can rocket use a remote redis server?", channel=HELP, user=PASSERBY, ts=asked)
            ).status
            == 200
        )
        wait_for(
            lambda: [m for m in _thread(box, HELP, asked) if "A solved thread says" in m.get("text", "")],
            timeout=60,
            what="the answer from the solved thread",
        )
    found = outputs_sent(model)["call_h"]
    assert (
        f"a solved thread {entry.id}: How do I point rocket at a remote redis server, as asked?" in found
        and "ROCKET_REDIS_URL" in found
    )
    assert _cards(box, PRIVATE, secret) == [] and len(_cards(box, HELP, other)) == 1 and is_card(second)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("ATLAS_HOME", str(tmp_path / "home"))
    assert atlas(["knowledge", "forget", entry.id]) == 0 and entries.listed(box.conn) == []
    assert atlas(["knowledge", "forget", entry.id]) == 1
    model.assert_done()
