"""The solved-thread loop with no model configured (issue 39 item 4): an offline answer marked solved, its entry
drafted from the thread's words and approved, and a later question in another thread answered with that solved
thread cited by its permalink (tests/workers/knowledge/test_solved_loop.py: the same with a scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

from bot.slack.views.answer import MARK_ANSWER_ACTION
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins.slack_events import mention
from tests.support.approvals_harness import pending_id
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import MAINTAINER, inbox
from tests.workers.knowledge.test_solved_loop import ASKER, HELP, PASSERBY, _answer, _cards, _click, _value
from workers.knowledge import entries


def test_an_approved_entry_is_cited_by_a_later_offline_answer(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="") as box, box.worker("solved-offline-w1"):
        box.slack.add_user(ASKER)
        box.slack.add_user(PASSERBY)
        thread = "1700009400.000100"
        question = "How do I point rocket at a remote redis server?"
        assert box.send.event(mention(question, channel=HELP, user=ASKER, ts=thread)).status == 200
        answer = _answer(box, HELP, thread)
        assert "a solved thread" not in json.dumps(answer)  # none kept yet
        assert (
            _click(box, HELP, answer, MARK_ANSWER_ACTION, str(_value(answer, MARK_ANSWER_ACTION)), ASKER, thread) == 200
        )
        [card] = wait_for(lambda: _cards(box, HELP, thread), timeout=60, what="the knowledge card")
        assert _click(box, HELP, card, APPROVE_ACTION, pending_id(card), MAINTAINER, thread) == 200
        [entry] = wait_for(lambda: entries.listed(box.conn), timeout=60, what="the entry kept")
        later = "1700009500.000100"
        assert box.send.event(mention(question, channel=HELP, user=PASSERBY, ts=later)).status == 200
        reply = json.dumps(_answer(box, HELP, later), ensure_ascii=False)
    assert entry.permalink and entry.permalink in reply and "a solved thread" in reply
