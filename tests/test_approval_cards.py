"""Approval cards: what the approver sees, rendered with slack_sdk's models (which check Slack's limits)."""

from __future__ import annotations

import json

from tools.tracker import IssueRef
from workers.approval_cards import APPROVE_ACTION, DENY_ACTION, CardView, buttons, describe, outcome_line, stated_reason
from workers.approvals import Approval
from workers.state import RunState

ISSUE = IssueRef(7, "Scheduler <stops> & restarts", "open", ("bug",), "https://t.example/7")


def card(name: str, arguments: dict, reason: str = "") -> str:
    view = CardView("run1.call_a", name, arguments, ISSUE, IssueRef(2, "Original", "open", (), None), reason, "UASK", 1_800_000_000)
    return json.dumps(describe(view) + [buttons(view.pending_id)])


def test_buttons_carry_only_the_opaque_pending_id() -> None:
    actions = buttons("run1.call_a")
    assert [(e["action_id"], e["value"]) for e in actions["elements"]] == [(APPROVE_ACTION, "run1.call_a"), (DENY_ACTION, "run1.call_a")]


def test_titles_are_escaped_and_linked() -> None:
    text = card("add_labels", {"issue_id": 7, "labels": ["bug", "area:workers"]})
    assert "<https://t.example/7|#7 Scheduler &lt;stops&gt; &amp; restarts>" in text
    assert '{"style": {"code": true}, "text": "area:workers", "type": "text"}' in text
    assert "Asked by <@UASK>" in text


def test_a_comment_is_shown_verbatim_and_cannot_ping_or_link() -> None:
    body = "Thanks! <!channel> see <http://evil.example|the docs> *now*"
    blocks = json.loads(card("post_comment", {"issue_id": 7, "body": body}))
    pre = [b for b in blocks if b["type"] == "rich_text" and b["elements"][0]["type"] == "rich_text_preformatted"]
    assert pre[0]["elements"][0]["elements"] == [{"type": "text", "text": body}]
    assert all("<!channel>" not in json.dumps(b) for b in blocks if b["type"] in ("section", "context"))


def test_closing_as_a_duplicate_names_the_original() -> None:
    assert "duplicate of #2 Original" in card("close_issue", {"issue_id": 7, "reason": "duplicate", "duplicate_of": 2})
    assert "*Close as:* not planned" in card("close_issue", {"issue_id": 7, "reason": "not_planned", "duplicate_of": None})


def test_the_stated_reason_is_the_assistant_text_before_the_call() -> None:
    run = RunState(question="q", items=[
        {"type": "message", "role": "user", "content": "label it"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It crashes, so: bug."}]},
        {"type": "function_call", "call_id": "call_a", "name": "add_labels", "arguments": "{}"},
        {"type": "function_call", "call_id": "call_b", "name": "post_comment", "arguments": "{}"},
    ])
    assert stated_reason(run, "call_a") == "It crashes, so: bug."
    assert stated_reason(run, "call_b") == "It crashes, so: bug."
    assert stated_reason(RunState(question="q"), "call_a") == ""
    text = card("add_labels", {"issue_id": 7, "labels": ["bug"]}, reason="<@U123> said so")
    assert '"text": "<@U123> said so"' in text  # plain rich text, not mrkdwn: no mention is rendered


def test_the_outcome_says_who_what_and_when() -> None:
    approval = Approval(pending_id="p", run_id="r", call_id="c", name="add_labels", arguments="{}", step=1,
                        status="denied", decider="UMAINT", decided_at=1_800_000_000.0)
    assert outcome_line(approval).startswith(":no_entry_sign: Denied by <@UMAINT> <!date^1800000000^")
