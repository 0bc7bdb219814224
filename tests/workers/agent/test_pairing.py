"""The pairing checker (workers/agent/pairing.py): every call has one output after it, reasoning stays
with its call, and where a transcript may be cut."""

from __future__ import annotations

import pytest

from tests.support.transcripts import Item, assistant, call, investigation, output, reasoning, user
from workers.agent.pairing import check_pairing, cut_points


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
