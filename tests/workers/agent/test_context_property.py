"""Property: on any transcript and any budget, fitting the context keeps pairing, never mutates its
input, keeps recent results, and keeps or drops a model turn whole."""

from __future__ import annotations

import copy
import itertools
import json
import re

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.support.transcripts import Item, assistant, call, output, outputs_of, reasoning, user, words
from workers.agent.compaction import SUMMARY_HEADER
from workers.agent.context import ContextBudget, count_items, fit
from workers.agent.pairing import check_pairing, cut_points, is_model_output


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
def test_fit_preserves_pairing_on_any_transcript(
    items: list[Item], window: int, keep: int, summary_fails: bool
) -> None:
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
