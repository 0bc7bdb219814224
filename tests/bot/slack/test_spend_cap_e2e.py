"""End to end (issue 38): the install's daily cap reached mid-day by an answer refuses every further model call
(a real worker, the strict Responses stand-in, the Slack and GitHub stand-ins): the next question gets one
message saying what was reached and when it resets, a new issue is still triaged (offline), and the slash
command's lookups still answer."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import redis

from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_events import mention
from tests.standins.slack_interactions import command
from tests.standins.turns import Usage, reply_text
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, Inbox, inbox, text_of
from workers import wording
from workers.agent.spend import Ledger
from workers.runs.store import RunStore

CHANNEL = "C0PROJECT"
# Output tokens at $1,000 per million, input free: a mention's call may cost $25 at most (25,000 output tokens),
# a triage call $4 (4,000). The first answer costs $22, leaving $3.50 of the $25.50 cap: room for neither.
PRICE, CAP, FIRST_OUTPUT = "0,0,1000", "25.5", 22_000


def _thread(box: Inbox, ts: str) -> list[dict]:
    return copy.deepcopy(box.slack.thread(CHANNEL, ts))


def test_a_cap_reached_mid_day_refuses_model_calls_with_one_message_while_lookups_and_triage_go_on(
    tmp_path: Path, redis_url: str
) -> None:
    with (
        ScriptedModel() as model,
        inbox(
            tmp_path,
            redis_url,
            ATLAS_PRICE=PRICE,
            ATLAS_DAILY_COST_LIMIT=CAP,
            ATLAS_SLASH_COMMAND="/rocket",
            ATLAS_MODEL_RETRIES="0",
            **model.env(),
        ) as box,
        box.worker("spend-w1"),
    ):
        model.script(reply_text("Add `retry_policy` to the config.", usage=Usage(output_tokens=FIRST_OUTPUT)))
        first, second = "1700009000.000100", "1700009100.000100"
        assert (
            box.send.event(mention(f"Why does the scheduler crash?\n{TRACEBACK}", channel=CHANNEL, ts=first)).status
            == 200
        )
        wait_for(lambda: any("retry_policy" in text_of(m) for m in _thread(box, first)), timeout=60, what="the answer")
        spent = Ledger(redis.Redis.from_url(redis_url)).day()
        assert (
            spent["install"] == 22.0 and spent["repo:acme/rocket"] == 22.0 and spent[f"channel:slack:{CHANNEL}"] == 22.0
        )

        assert box.send.event(mention("And how do I set the retry policy?", channel=CHANNEL, ts=second)).status == 200
        [refusal] = wait_for(lambda: _thread(box, second), timeout=60, what="the refusal")  # the thread's one message
        said = text_of(refusal)
        assert "Today's spending limit for Atlas ($25.50 a day) is reached" in said and "00:00 UTC" in said
        assert wording.stop_reason("spend_cap") in said and "Traceback" not in said and "SpendCapReached" not in said
        assert "atlas_file_issue" not in said and "atlas_feedback" not in said  # nothing to file or rate
        [run] = [
            r
            for r in (
                RunStore(box.conn).load(k.decode().rsplit(":", 1)[1])
                for k in box.conn.scan_iter("atlas:run:*")
                if k.count(b":") == 2
            )
            if r.question.startswith("And how")
        ]
        assert run.stop_reason == "spend_cap" and run.cost_usd == 0.0

        issue = box.open_issue("Scheduler crashes on startup after upgrading", f"After upgrading:\n{TRACEBACK}")
        [card] = box.cards()
        assert f"#{issue['number']}" in text_of(card)  # triaged, by the offline engine: the model was never asked
        lookup = box.send.form(command("issue 1", name="/rocket", channel=CHANNEL))
        assert lookup.status == 200 and box.github.repo.issues[1]["title"] in json.dumps(lookup.json())
    assert len(model.requests) == 1  # only the first answer reached the model
    assert Ledger(redis.Redis.from_url(redis_url)).day()["install"] == 22.0  # nothing more was spent or reserved
