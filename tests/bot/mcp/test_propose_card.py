"""A proposal's card names the MCP client and shows its reason as data, on Slack and Discord (issue 27).

The reason and the client's name come from outside: every invisible or direction-changing character is
shown as its code point and counted, and nothing in them can ping or link.
"""

from __future__ import annotations

import json

from bot.discord.triage_card import card_payload
from bot.slack.triage_card import blocks_for
from workers.new_issues.proposals import Proposal, action, problem
from workers.runs.state import Origin, PendingCall, RunState
from workers.runs.triage_record import TriageRecord

REASON = "Scheduler\u200b bug <@U0BOSS> @everyone <https://evil.invalid|docs>"


def _run() -> RunState:
    proposal = Proposal(issue_id=7, action="label", labels=["bug"], body=None, duplicate_of=None, reason=REASON)
    drafted = action(proposal)
    record = TriageRecord(
        repo="acme/rocket",
        issue=7,
        title="Crash",
        author="zoe",
        actions=[drafted],
        proposal={"by": "agent\u202e", "reason": REASON},
    )
    call = PendingCall(
        pending_id=f"triage-x.{drafted.call_id}",
        call_id=drafted.call_id,
        name=drafted.tool,
        arguments=json.dumps(drafted.arguments),
        step=drafted.step,
    )
    return RunState(
        id="triage-x",
        question="triage #7",
        origin=Origin(kind="slack", channel="C0TRIAGE"),
        triage=record,
        pending=[call],
        status="awaiting_approval",
    )


def test_the_proposal_line_is_shown_revealed_and_counted_on_both_platforms() -> None:
    run = _run()
    assert run.triage is not None
    slack = json.dumps(blocks_for(run, None), ensure_ascii=False)
    assert "Proposed over MCP by agent&lt;U+202E&gt;" in slack and "Scheduler&lt;U+200B&gt; bug" in slack
    assert "<@U0BOSS>" not in slack and "<https://evil.invalid" not in slack and "\u200b" not in slack
    assert "2 invisible or direction-changing character" in slack
    discord = card_payload(run, None)
    text = json.dumps(discord, ensure_ascii=False)
    assert "Proposed over MCP by agent\\<U+202E\\>" in discord["content"]  # Discord's Markdown: < escaped, shown as <
    assert "\u202e" not in text and "\u200b" not in text
    assert "2 invisible or direction-changing character" in text
    assert discord.get("allowed_mentions", {}).get("parse") == []


def test_a_proposal_must_give_exactly_what_its_action_uses() -> None:
    def ask(**fields: object) -> str | None:
        return problem(
            Proposal(
                **{
                    "issue_id": 7,
                    "action": "label",
                    "labels": None,
                    "body": None,
                    "duplicate_of": None,
                    "reason": "r",
                    **fields,
                }
            )
        )

    assert ask(labels=["bug"]) is None
    assert ask() == "action label needs labels"
    assert ask(labels=["bug"], body="hi") == "action label takes only labels; set body to null"
    assert ask(action="close_duplicate", duplicate_of=7) == "an issue cannot be a duplicate of itself"
    assert ask(action="comment", body="Thanks, fixed in 3.1.2.") is None
