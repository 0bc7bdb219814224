"""Help-channel posts in the chaos bench (issue 35): plain `message.channels` events in a help channel
(ATLAS_HELP_CHANNELS), no mention, sent at `atlas serve` among the mentions and through the same faults
(a worker SIGKILLed, Slack answering 503, Redis down while some arrive). Each must be answered once, in its
own thread, with its own answer. The rates are set high: the faults are under test here, not the limits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SlackSender, channel_message

HELP = "C0HELP"


@dataclass
class HelpOutcome:
    posts: int
    answered_once: int = 0
    duplicated: int = 0
    missing: int = 0
    wrong: int = 0  # an answer that is not this post's question's
    refused: int = 0  # posts answered 503 (Redis down), then re-sent as Slack retries them
    dropped: int = 0  # still refused after Slack's three retries


def env() -> dict[str, str]:
    """The help channel, with rates no bench run reaches (each post from its own person)."""
    return {"ATLAS_HELP_CHANNELS": HELP, "ATLAS_HELP_RATE": "100000", "ATLAS_HELP_PERSON_RATE": "100000"}


def thread(index: int) -> str:
    return f"1700200000.{index:06d}"


def question(index: int) -> str:
    return f"chaos help question {index}"


def post(send: SlackSender, index: int, retry: int = 0) -> int:
    """One help post, as Slack sends it (`retry`: Slack's re-send of an event that was not taken); the status.
    With Redis down the web process answers 503 (a help post is not spooled as a mention is) and Slack retries
    the event, 1 and then 5 minutes later: the bench re-sends it once Redis is back."""
    event = channel_message(
        question(index), channel=HELP, user=f"U0ASK{index:05d}", ts=thread(index), eid=f"EvChaosHelp{index:06d}"
    )
    return send.event(event, **({"retry_num": retry} if retry else {})).status


def retry(send: SlackSender, refused: list[int], pause: float = 2.0) -> list[int]:
    """Slack's retries of the refused posts (up to three, `pause` apart here, minutes apart in Slack); those
    still refused after the third, which Slack would drop."""
    for attempt in (1, 2, 3):
        refused = [i for i in refused if post(send, i, retry=attempt) == 503]
        if not refused:
            break
        time.sleep(pause)
    return refused


def answers(api: SlackAPI, index: int) -> list[dict[str, Any]]:
    return [
        m for m in api.thread(HELP, thread(index)) if any(b.get("type") == "markdown" for b in m.get("blocks") or [])
    ]


def count(api: SlackAPI, posts: int, refused: int, dropped: int) -> HelpOutcome:
    outcome = HelpOutcome(posts, refused=refused, dropped=dropped)
    for index in range(posts):
        found = answers(api, index)
        outcome.answered_once += len(found) == 1
        outcome.duplicated += len(found) > 1
        outcome.missing += not found
        outcome.wrong += any(f"answer to {question(index)}" not in str(a.get("blocks")) for a in found)
    return outcome
