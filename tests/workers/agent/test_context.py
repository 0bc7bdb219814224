"""Fitting the context window (workers/agent/context.py): token counting, clearing old results, and
compaction, each keeping the Pairing invariant."""

from __future__ import annotations

import copy
import json

import pytest

from atlas import tokens
from tests.support.transcripts import Item, assistant, call, investigation, output, outputs_of, reasoning, user, words
from workers.agent.compaction import SUMMARY_HEADER, SUMMARY_INSTRUCTIONS, extractive_summary
from workers.agent.context import ContextBudget, clear_results, count_item, count_items, fit
from workers.agent.pairing import check_pairing

# -- counting ----------------------------------------------------------------------------------------


def test_count_items_adds_text_overhead_instructions_and_tools() -> None:
    tools = [{"type": "function", "name": "search_docs", "parameters": {"type": "object"}}]
    item = output("c", words(100))
    assert count_item(item) == 104
    assert count_item(reasoning("rs", encrypted=400)) == 4 + 100
    assert count_items([item], "Be brief.", tools) == 104 + 4 + tokens.count("Be brief.") + tokens.count(
        json.dumps(tools)
    )


# -- clearing ----------------------------------------------------------------------------------


def test_clearing_keeps_pairing_and_the_last_two_results() -> None:
    items = investigation([300, 400, 500, 600])
    original = copy.deepcopy(items)
    cleared, n = clear_results(items, keep_recent=2)
    assert items == original and n == 2 and len(cleared) == len(items)
    assert check_pairing(cleared) == []
    results = outputs_of(cleared)
    assert results["call_2"] == words(500) and results["call_3"] == words(600)
    assert (
        results["call_0"]
        == '[cleared: search_issues({"query": "q0"}) result removed to save context; call it again if needed]'
    )
    assert results["call_1"].startswith("[cleared: search_issues(")
    assert clear_results(cleared, keep_recent=2)[1] == 0


def test_clearing_leaves_results_shorter_than_the_placeholder() -> None:
    cleared, n = clear_results(investigation([3, 300, 5, 5]), keep_recent=2)
    assert n == 1 and outputs_of(cleared)["call_0"] == words(3)


# -- fit: no-op, clear, compact ----------------------------------------------------------------

SMALL = ContextBudget(window=3_000, output_reserve=1_000)


def test_fit_under_budget_is_a_no_op() -> None:
    items = investigation([100, 200])
    result = fit(items, budget=ContextBudget(), instructions="x", summarize=lambda _: pytest.fail("no summary needed"))
    assert result.items == items and result.items is not items
    assert (result.cleared, result.compacted, result.problems) == (0, False, [])
    assert result.tokens_before == result.tokens_after == count_items(items, "x")


def test_fit_clears_before_it_compacts() -> None:
    items = investigation([900, 900, 100, 100])
    result = fit(items, budget=SMALL, summarize=lambda _: pytest.fail("clearing was enough"))
    assert result.cleared == 2 and not result.compacted and result.tokens_after <= SMALL.input_limit
    assert len(result.items) == len(items) and result.problems == []


def test_compaction_keeps_question_summary_and_recent_tail() -> None:
    items = investigation([300, 300, 300, 300, 300, 900, 900])
    seen: list[list[Item]] = []

    def summarize(dropped: list[Item]) -> str:
        seen.append(dropped)
        return "searched; found #12"

    result = fit(items, budget=SMALL, summarize=summarize)
    assert result.compacted and result.problems == [] and result.tokens_after <= SMALL.input_limit
    assert result.items[0] is items[0]
    assert result.items[1] == {"type": "message", "role": "user", "content": f"{SUMMARY_HEADER}\nsearched; found #12"}
    # The last two results' turns do not fit beside the summary allowance: the last turn alone is kept.
    assert result.items[2:] == items[-3:]
    # The summary is written from the results as they were, not from their cleared placeholders.
    assert outputs_of(seen[0])["call_0"] == words(300)


def test_compaction_keeps_the_turns_of_the_recent_results_and_no_more() -> None:
    items = investigation([300] * 20 + [600, 600])
    result = fit(items, budget=SMALL)
    assert result.compacted and result.cleared == 20 and result.problems == []
    assert result.items[2:] == items[-6:]


def test_failed_summary_falls_back_to_extractive() -> None:
    items = investigation([300, 300, 300, 300, 300, 900, 900])
    items[2] = call("call_0", name="get_issue", arguments='{"issue_id": 161}')
    items[3] = output("call_0", "Orbit 3.1.0 reconnect storm, ORB-1202, see retries-and-backoff.md" + words(100))

    def broken(_: list[Item]) -> str:
        raise TimeoutError("model timed out")

    result = fit(items, budget=SMALL, summarize=broken)
    summary = result.items[1]["content"]
    assert result.compacted and summary.startswith(SUMMARY_HEADER)
    for token in ("get_issue(", "#161", "3.1.0", "ORB-1202", "retries-and-backoff.md"):
        assert token in summary


def test_follow_up_question_survives_compaction() -> None:
    items = [user("first question"), assistant("first answer"), user("the follow-up")] + investigation(
        [300] * 4 + [900, 900]
    )[1:]
    result = fit(items, budget=SMALL)
    assert result.compacted and result.problems == []
    assert [m.get("content") for m in result.items[:3:2]] == ["first question", "the follow-up"]


def test_extractive_summary_keeps_identifiers_verbatim() -> None:
    items = [
        call("a", "search_docs", '{"query": "lease", "doc_id": "leases-and-heartbeats"}'),
        output("a", 'issue 161 and #143 mention v3.2.0-rc1 and 2.9.4; ORB-1101; "doc_id": "error-codes"; 2.7 seconds'),
        output("b", "Doc sections (best first):\n- redis-broker § Reconnects [Redis broker]: backoff on reconnect"),
    ]
    summary = extractive_summary(items)
    assert "Issues: #143, #161" in summary or "Issues: #161, #143" in summary
    assert "Doc ids: leases-and-heartbeats, error-codes, redis-broker" in summary
    assert "Versions: v3.2.0-rc1, 2.9.4" in summary and "ORB codes: ORB-1101" in summary
    assert all(word in SUMMARY_INSTRUCTIONS for word in ("verbatim", "#123", "ORB-1101", "3.1.0", "doc ids"))
