"""Context management: the Pairing invariant through clearing and compaction, and the token math."""

from __future__ import annotations

import copy
import itertools
import json
import re

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from atlas import tokens
from workers.agent.compaction import SUMMARY_HEADER, SUMMARY_INSTRUCTIONS, extractive_summary
from workers.agent.context import ContextBudget, clear_results, count_item, count_items, fit
from workers.agent.pairing import Item, check_pairing, cut_points, is_model_output


def user(text: str) -> Item:
    return {"type": "message", "role": "user", "content": text}


def assistant(text: str, mid: str = "msg_1") -> Item:
    return {"type": "message", "role": "assistant", "id": mid, "status": "completed", "content": [{"type": "output_text", "text": text}]}


def reasoning(rid: str, encrypted: int = 40) -> Item:
    return {"type": "reasoning", "id": rid, "summary": [], "encrypted_content": "e" * encrypted}


def call(call_id: str, name: str = "search_issues", arguments: str = '{"query": "DST"}') -> Item:
    return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name, "arguments": arguments, "status": "completed"}


def output(call_id: str, text: str) -> Item:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def words(n: int) -> str:
    """About n o200k tokens of text."""
    return " word" * n


def outputs_of(items: list[Item]) -> dict[str, str]:
    return {item["call_id"]: item["output"] for item in items if item["type"] == "function_call_output"}


def investigation(sizes: list[int]) -> list[Item]:
    """Question, then one step per size: reasoning, a call, its result of that many tokens."""
    items = [user("Why did jobs run twice on the DST change? See #12 and ORB-1101.")]
    for i, size in enumerate(sizes):
        items += [reasoning(f"rs_{i}"), call(f"call_{i}", arguments=json.dumps({"query": f"q{i}"})), output(f"call_{i}", words(size))]
    return items


# -- pairing checker ---------------------------------------------------------------------------


def test_valid_transcript_has_no_problems() -> None:
    items = investigation([10, 20]) + [reasoning("rs_end"), assistant("Done: #12.")]
    assert check_pairing(items) == []


def test_missing_output_is_found() -> None:
    problems = check_pairing([user("q"), call("call_a")])
    assert len(problems) == 1 and "'call_a'" in problems[0] and "has no function_call_output" in problems[0]


def test_orphan_output_is_found() -> None:
    problems = check_pairing([user("q"), output("call_x", "result")])
    assert len(problems) == 1 and "orphan" in problems[0] and "'call_x'" in problems[0]


def test_output_before_its_call_is_found() -> None:
    problems = check_pairing([user("q"), output("call_a", "r"), call("call_a")])
    assert any("comes before its function_call" in p for p in problems)


def test_duplicate_call_id_is_found() -> None:
    items = [user("q"), call("call_a"), output("call_a", "r"), call("call_a"), output("call_a", "r")]
    assert any("duplicate call_id 'call_a'" in p for p in check_pairing(items))


def test_two_outputs_for_one_call_are_found() -> None:
    items = [user("q"), call("call_a"), output("call_a", "r"), output("call_a", "r")]
    assert any("has 2 outputs" in p for p in check_pairing(items))


def test_call_without_call_id_is_found() -> None:
    items = [user("q"), {"type": "function_call", "name": "search_docs", "arguments": "{}"}]
    assert any("has no call_id" in p for p in check_pairing(items))


@pytest.mark.parametrize(
    "items, where",
    [
        ([user("q"), reasoning("rs_1")], "ends the transcript"),
        ([user("q"), reasoning("rs_1"), user("summary")], "followed by a user message"),
        ([user("q"), call("c1"), reasoning("rs_1"), output("c1", "r")], "followed by a function_call_output"),
    ],
)
def test_separated_reasoning_is_found(items: list[Item], where: str) -> None:
    problems = check_pairing(items)
    assert len(problems) == 1 and "'rs_1'" in problems[0] and where in problems[0]


def test_cut_points_never_fall_inside_a_turn_or_a_pair() -> None:
    items = [user("q"), reasoning("rs"), call("a"), call("b"), output("a", "x"), output("b", "y"), assistant("done")]
    assert cut_points(items) == [0, 1, 6, 7]


# -- counting ----------------------------------------------------------------------------------------


def test_count_items_adds_text_overhead_instructions_and_tools() -> None:
    tools = [{"type": "function", "name": "search_docs", "parameters": {"type": "object"}}]
    item = output("c", words(100))
    assert count_item(item) == 104
    assert count_item(reasoning("rs", encrypted=400)) == 4 + 100
    assert count_items([item], "Be brief.", tools) == 104 + 4 + tokens.count("Be brief.") + tokens.count(json.dumps(tools))


# -- clearing ----------------------------------------------------------------------------------


def test_clearing_keeps_pairing_and_the_last_two_results() -> None:
    items = investigation([300, 400, 500, 600])
    original = copy.deepcopy(items)
    cleared, n = clear_results(items, keep_recent=2)
    assert items == original and n == 2 and len(cleared) == len(items)
    assert check_pairing(cleared) == []
    results = outputs_of(cleared)
    assert results["call_2"] == words(500) and results["call_3"] == words(600)
    assert results["call_0"] == '[cleared: search_issues({"query": "q0"}) result removed to save context; call it again if needed]'
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
    items = [user("first question"), assistant("first answer"), user("the follow-up")] + investigation([300] * 4 + [900, 900])[1:]
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


# -- property: any transcript, any budget ------------------------------------------------------


@st.composite
def transcripts(draw: st.DrawFn) -> list[Item]:
    """A question, then steps of parallel calls (reasoning on or off, random result sizes), with
    interim answers and follow-up questions between some steps, ending in an answer or a result."""
    ids = itertools.count()
    items = [user("Why do jobs run twice? #12")]
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 4)) == 0:
            items += [reasoning(f"rs_{next(ids)}")] if draw(st.booleans()) else []
            n = next(ids)
            items += [assistant("so far: #12", f"msg_{n}"), user(f"and what about ORB-1101? ({n})")]
        calls = [f"call_{next(ids)}" for _ in range(draw(st.integers(1, 3)))]
        items += [reasoning(f"rs_{next(ids)}", draw(st.integers(0, 800)))] if draw(st.booleans()) else []
        items += [call(c, arguments=json.dumps({"query": c})) for c in calls]
        items += [output(c, words(draw(st.integers(0, 1_200)))) for c in calls]
    if draw(st.booleans()):
        items += [reasoning(f"rs_{next(ids)}"), assistant("answer", "msg_end")]
    return items


def key(item: Item) -> tuple[str, str]:
    """Identity across rewrites: cleared outputs keep their call_id."""
    return item["type"], str(item.get("call_id") or item.get("id") or item.get("content"))


def turns(items: list[Item]) -> list[set[tuple[str, str]]]:
    """Each model turn (a run of model-output items) with the outputs of its calls."""
    groups: list[set[tuple[str, str]]] = []
    for model, run in itertools.groupby(items, is_model_output):
        if model:
            group = {key(i) for i in run}
            groups.append(group | {("function_call_output", k[1]) for k in group if k[0] == "function_call"})
    return groups


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=transcripts(),
    window=st.integers(1_200, 12_000),
    keep=st.integers(0, 3),
    summary_fails=st.booleans(),
)
def test_fit_preserves_pairing_on_any_transcript(items: list[Item], window: int, keep: int, summary_fails: bool) -> None:
    budget = ContextBudget(window=window, output_reserve=1_000, keep_recent_results=keep)
    original = copy.deepcopy(items)

    def summarize(dropped: list[Item]) -> str:
        if summary_fails:
            raise RuntimeError("model down")
        return f"{len(dropped)} items summarized"

    result = fit(items, budget=budget, summarize=summarize)
    kept = result.items
    event("compacted" if result.compacted else "cleared only" if result.cleared else "unchanged")
    assert items == original, "fit mutated its input"
    assert check_pairing(kept) == [] and result.problems == []
    assert result.tokens_after == count_items(kept)
    assert kept[0] is items[0]
    if result.tokens_before <= budget.input_limit:
        assert kept == items and result.cleared == 0 and not result.compacted
        return
    # Recent results are never cleared.
    recent = [i["call_id"] for i in items if i["type"] == "function_call_output"][len(outputs_of(items)) - keep :]
    for call_id in recent:
        assert outputs_of(kept).get(call_id, outputs_of(items)[call_id]) == outputs_of(items)[call_id]
    summaries = [i for i, item in enumerate(kept) if str(item.get("content", "")).startswith(SUMMARY_HEADER)]
    assert len(summaries) == (1 if result.compacted else 0)
    if not result.compacted:
        assert [key(i) for i in kept] == [key(i) for i in items]
        return
    # Without the summary, what is kept is the original order, ending in a contiguous suffix.
    rest = [key(item) for item in kept if not str(item.get("content", "")).startswith(SUMMARY_HEADER)]
    positions = [[key(i) for i in items].index(k) for k in rest]
    assert positions == sorted(positions) and positions[-1] == len(items) - 1
    tail_start = positions[-1]
    while tail_start - 1 in positions:
        tail_start -= 1
    assert [key(i) for i in kept[len(kept) - (len(items) - tail_start) :]] == [key(i) for i in items[tail_start:]]
    if result.tokens_after > budget.input_limit:  # nothing fitted: only the last turn is kept
        assert tail_start >= cut_points(items)[-2] or items[tail_start]["role"] == "user"
    # A model turn and its results are kept whole or dropped whole: no call loses its reasoning.
    kept_keys = set(rest)
    for group in turns(items):
        assert group <= kept_keys or not (group & kept_keys), group
    assert re.match(re.escape(SUMMARY_HEADER), kept[summaries[0]]["content"])
