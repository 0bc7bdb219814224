"""The click's card edit against a worker that was quicker (bot/slack/approvals.py `_edit_card`): the closing decision
queues the resume before the web edits the card, so the worker may have run the call and shown its result first; the
web's edit must not take the result off the card. Against the Slack stand-in and a real Redis."""

from __future__ import annotations

import types
from typing import Any, cast

import redis
from slack_sdk import WebClient

from bot.slack.approvals import _edit_card
from bot.slack.deps import Deps
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from workers.approvals import ledger
from workers.approvals.records import Approval

CHANNEL = "C0CARDS"
KEPT = "Kept as knowledge k-1: search_history finds it, cited as a solved thread."


def _card(api: SlackAPI) -> tuple[WebClient, dict[str, Any], Approval]:
    client = WebClient(token=api.token, base_url=api.base_url)
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "Keep this thread as knowledge?"}}]
    ts = str(client.chat_postMessage(channel=CHANNEL, text="card", blocks=blocks)["ts"])
    body = {"container": {"channel_id": CHANNEL, "message_ts": ts}, "message": {"ts": ts, "blocks": blocks}}
    approval = Approval(
        pending_id="run-1.call_k",
        run_id="run-1",
        call_id="call_k",
        name="keep_solved_thread",
        arguments="{}",
        step=1,
        status="approved",
        decider="UMAINT",
        decided_at=1_800_000_000.0,
    )
    return client, body, approval


def _shown(api: SlackAPI) -> str:
    return str(api.calls_to("chat.update")[-1].args)


def test_a_result_the_worker_recorded_first_stays_on_the_card_after_the_click_s_edit(
    slack_api: SlackAPI,  # noqa: F811
    redis_conn: redis.Redis,
) -> None:
    client, body, approval = _card(slack_api)
    ledger.record(redis_conn, approval.run_id, approval.call_id, KEPT, True)  # the worker ran it and edited first
    _edit_card(cast(Deps, types.SimpleNamespace(client=client, redis=redis_conn)), body, approval)
    assert len(slack_api.calls_to("chat.update")) == 1  # one edit, with the result
    assert "Kept as knowledge k-1" in _shown(slack_api)


def test_with_no_result_yet_the_click_s_edit_shows_the_decision_alone(
    slack_api: SlackAPI,  # noqa: F811
    redis_conn: redis.Redis,
) -> None:
    client, body, approval = _card(slack_api)
    _edit_card(cast(Deps, types.SimpleNamespace(client=client, redis=redis_conn)), body, approval)
    assert len(slack_api.calls_to("chat.update")) == 1
    assert "Approved by <@UMAINT>" in _shown(slack_api) and "Kept as knowledge" not in _shown(slack_api)
