"""The look-back for a card a killed worker posted (bot/slack/card_marker.py) under Slack's 2025 limits for a
distributed app outside the Marketplace (issue 35): conversations.history and .replies answer 15 messages a
page and one call a minute. Read back from now, the look-back found only the last 75 messages; read forward
from the intent it finds the card however busy the channel was since. The Slack stand-in enforces the page
and the minute (shortened to a second here) with a 429 and Retry-After, which the client waits out."""

from __future__ import annotations

import time

import pytest

from atlas.settings import Settings
from bot.slack import card_marker
from bot.slack.client import web_client
from tests.standins.slack_api import SlackAPI

CHANNEL = "C0TRIAGE"


def _message(api: SlackAPI, ts: float, *, metadata: dict[str, object] | None = None, thread: str | None = None) -> str:
    stamp = f"{ts:.6f}"
    message: dict[str, object] = {"ts": stamp, "text": f"message {stamp}", "blocks": []}
    if metadata:
        message["metadata"] = metadata
    if thread:
        message["thread_ts"] = thread
    api.messages[(CHANNEL, stamp)] = message
    return stamp


@pytest.mark.parametrize("in_thread", [False, True])
def test_a_card_posted_before_many_messages_is_found_with_15_a_page_and_one_read_a_minute(in_thread: bool) -> None:
    with SlackAPI() as api:
        api.history.tier, api.history.window = "limited", 1.0
        client = web_client(Settings.from_env({**api.env(), "ATLAS_SLACK_TIER": "limited"}))
        intent = time.time() - 900  # the worker set out to post, posted, and died before recording the ts
        thread = _message(api, intent - 3600) if in_thread else None
        card = _message(api, intent + 0.5, metadata=card_marker.approval_marker("p-35"), thread=thread)
        for n in range(200):  # a busy channel since: 200 messages over the next 13 minutes
            _message(api, intent + 2 + n * 4, thread=thread)
        found = card_marker.find_marked(client, CHANNEL, card_marker.approval_marker("p-35"), intent, thread)
        assert found == card
        reads = [c for c in api.calls if c.method.startswith("conversations.") and c.status == 200]
        assert reads and len(reads) <= card_marker.MAX_LIMITED_REQUESTS
        assert all(len(c.reply["messages"]) <= 15 for c in reads)


def test_no_card_is_none_after_the_reads_the_tier_allows() -> None:
    with SlackAPI() as api:
        api.history.tier, api.history.window = "limited", 1.0
        client = web_client(Settings.from_env({**api.env(), "ATLAS_SLACK_TIER": "limited"}))
        intent = time.time() - 600
        for n in range(40):
            _message(api, intent + 1 + n * 10)
        assert card_marker.find_marked(client, CHANNEL, card_marker.approval_marker("p-none"), intent) is None
        assert len([c for c in api.calls if c.method == "conversations.history" and c.status == 200]) <= 3
