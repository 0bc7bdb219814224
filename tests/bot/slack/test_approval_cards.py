"""Approval cards: what the approver sees, rendered with slack_sdk's models (which check Slack's limits)."""

from __future__ import annotations

import json

from bot.slack.cards import decision_of
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION, buttons, describe, outcome_line
from tools.tracker import IssueRef
from workers.approvals.records import Approval
from workers.messages.approval import CardView, stated_reason, untrusted_reads
from workers.runs.state import RunState

ISSUE = IssueRef(7, "Scheduler <stops> & restarts", "open", ("bug",), "https://t.example/7")


def card(name: str, arguments: dict, reason: str = "") -> str:
    view = CardView(
        "run1.call_a", name, arguments, ISSUE, IssueRef(2, "Original", "open", (), None), reason, "UASK", 1_800_000_000
    )
    return json.dumps(describe(view) + [buttons(view.pending_id)])


def test_buttons_carry_only_the_opaque_pending_id() -> None:
    actions = buttons("run1.call_a")
    assert [(e["action_id"], e["value"]) for e in actions["elements"]] == [
        (APPROVE_ACTION, "run1.call_a"),
        (DENY_ACTION, "run1.call_a"),
    ]


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
    assert "*Close as:* not planned" in card(
        "close_issue", {"issue_id": 7, "reason": "not_planned", "duplicate_of": None}
    )


def test_the_stated_reason_is_the_assistant_text_before_the_call() -> None:
    run = RunState(
        question="q",
        items=[
            {"type": "message", "role": "user", "content": "label it"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "It crashes, so: bug."}],
            },
            {"type": "function_call", "call_id": "call_a", "name": "add_labels", "arguments": "{}"},
            {"type": "function_call", "call_id": "call_b", "name": "post_comment", "arguments": "{}"},
        ],
    )
    assert stated_reason(run, "call_a") == "It crashes, so: bug."
    assert stated_reason(run, "call_b") == "It crashes, so: bug."
    assert stated_reason(RunState(question="q"), "call_a") == ""
    text = card("add_labels", {"issue_id": 7, "labels": ["bug"]}, reason="<@U123> said so")
    assert '"text": "<@U123> said so"' in text  # plain rich text, not mrkdwn: no mention is rendered


def test_the_outcome_says_who_what_and_when() -> None:
    approval = Approval(
        pending_id="p",
        run_id="r",
        call_id="c",
        name="add_labels",
        arguments="{}",
        step=1,
        status="denied",
        decider="UMAINT",
        decided_at=1_800_000_000.0,
    )
    assert outcome_line(decision_of(approval)).startswith(":no_entry_sign: Denied by <@UMAINT> <!date^1800000000^")


def test_bidi_controls_in_a_comment_or_label_are_shown_not_obeyed() -> None:
    controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
    body = "Fixed in \u202egnp.exe"  # displays as "Fixed in exe.png" where the override is obeyed
    text = card("post_comment", {"issue_id": 7, "body": body}, reason="Because \u2067the issue says so\u2069")
    comment = card("add_labels", {"issue_id": 7, "labels": ["bug\u202e", "do" + controls + "cs"]})
    for shown in (text, comment):
        assert not any(c in json.loads(shown).__repr__() for c in controls)
    assert "Fixed in <U+202E>gnp.exe" in json.loads(text).__repr__()
    assert "Because <U+2067>the issue says so<U+2069>" in json.loads(text).__repr__()
    labels = json.loads(comment)[2]["elements"][0]["elements"]
    assert [p["text"] for p in labels if p.get("style")] == [
        "bug<U+202E>",
        "do<U+202A><U+202B><U+202C><U+202D><U+202E><U+2066><U+2067><U+2068><U+2069><U+200E><U+200F><U+061C>cs",
    ]
    assert "contains 3 invisible or direction-changing characters" in text  # one in the body, two in the reason
    assert "contains 13 invisible or direction-changing characters" in comment
    assert "invisible or direction-changing" not in card("post_comment", {"issue_id": 7, "body": "plain"})


def test_the_card_says_which_untrusted_text_came_before_the_proposal() -> None:
    run = RunState(
        question="q",
        items=[
            {"type": "function_call", "call_id": "c1", "name": "search_issues", "arguments": '{"query": "dst"}'},
            {"type": "function_call", "call_id": "c2", "name": "get_issue", "arguments": '{"issue_id": 237}'},
            {"type": "function_call", "call_id": "c3", "name": "search_docs", "arguments": '{"query": "x"}'},
            {"type": "function_call", "call_id": "c4", "name": "get_issue", "arguments": '{"issue_id": 237}'},
            {"type": "function_call", "call_id": "c5", "name": "close_issue", "arguments": '{"issue_id": 206}'},
            {"type": "function_call", "call_id": "c6", "name": "get_issue", "arguments": '{"issue_id": 9}'},
        ],
    )
    assert untrusted_reads(run, "c5") == ("issue search results", "#237")
    assert untrusted_reads(run, "c1") == ()
    view = CardView(
        "r.c5",
        "close_issue",
        {"issue_id": 206, "reason": "completed"},
        ISSUE,
        None,
        "",
        "UASK",
        1_800_000_000,
        read=("#237",),
    )
    assert "Proposed after reading #237*" in json.dumps(describe(view))
    assert "Proposed after" not in card("close_issue", {"issue_id": 7, "reason": "completed"})
