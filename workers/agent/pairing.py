"""The Pairing invariant: which transcripts the Responses API accepts, and where one may be cut.

With `store=false` the whole conversation goes back as input items on every call. The API rejects
a `function_call` without its `function_call_output` (and an output without its call), and a
reasoning item cut off from the output it produced. Context management drops and rewrites items,
so it checks its work here and cuts only at `cut_points`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Item = dict[str, Any]
"""One Responses input item, as plain JSON (what `responses.create(input=[...])` takes)."""


def is_model_output(item: Mapping[str, Any]) -> bool:
    """Whether the model emitted this item: reasoning, a function call, or an assistant message."""
    kind = item.get("type")
    return kind in ("reasoning", "function_call") or (kind == "message" and item.get("role") == "assistant")


def _describe(item: Mapping[str, Any]) -> str:
    kind = str(item.get("type"))
    return f"{item.get('role')} message" if kind == "message" else kind


def check_pairing(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every way `items` breaks the Pairing invariant, one line each; an empty list means it holds.

    Checked, with item positions in each message:
    - each `function_call` has a non-empty `call_id`, and no two calls share one;
    - each call has exactly one `function_call_output` with its `call_id`, placed after the call
      (none: "has no output"; two or more: "has N outputs");
    - each output's `call_id` belongs to a call in `items` ("orphan"), and that call comes earlier;
    - each reasoning item (or run of them) is immediately followed by a `function_call` or an
      assistant message, the output of the same model turn: not by a user message, a tool output
      or the end of the list.

    Not checkable from the items alone: a call whose reasoning item was dropped (nothing records
    that it had one). Compaction prevents that by cutting only at `cut_points`.
    """
    calls, problems = _calls(items)
    outputs, orphans = _outputs(items, calls)
    return problems + orphans + _output_counts(items, calls, outputs) + _reasoning(items)


def _calls(items: Sequence[Mapping[str, Any]]) -> tuple[dict[str, int], list[str]]:
    """Each well-formed call's position by `call_id`, and the calls without one or with a repeated one."""
    problems: list[str] = []
    calls: dict[str, int] = {}
    for i, item in enumerate(items):
        if item.get("type") != "function_call":
            continue
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            problems.append(f"item {i}: function_call {item.get('name')!r} has no call_id")
        elif call_id in calls:
            problems.append(
                f"item {i}: duplicate call_id {call_id!r} (also the function_call at item {calls[call_id]})"
            )
        else:
            calls[call_id] = i
    return calls, problems


def _outputs(items: Sequence[Mapping[str, Any]], calls: Mapping[str, int]) -> tuple[dict[str, list[int]], list[str]]:
    """The outputs' positions by `call_id`, and the outputs with no earlier call."""
    problems: list[str] = []
    outputs: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        if item.get("type") != "function_call_output":
            continue
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or call_id not in calls:
            problems.append(f"item {i}: orphan function_call_output: no function_call has call_id {call_id!r}")
        elif i < calls[call_id]:
            problems.append(
                f"item {i}: function_call_output for {call_id!r} comes before its function_call (item {calls[call_id]})"
            )
        else:
            outputs.setdefault(call_id, []).append(i)
    return outputs, problems


def _output_counts(
    items: Sequence[Mapping[str, Any]], calls: Mapping[str, int], outputs: Mapping[str, list[int]]
) -> list[str]:
    """The calls with no output or with more than one."""
    problems: list[str] = []
    for call_id, i in calls.items():
        found = outputs.get(call_id, [])
        if not found:
            problems.append(f"item {i}: function_call {call_id!r} ({items[i].get('name')}) has no function_call_output")
        elif len(found) > 1:
            problems.append(f"item {i}: function_call {call_id!r} has {len(found)} outputs (items {found})")
    return problems


def _reasoning(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """The reasoning items not followed by the call or assistant message of their own turn."""
    problems: list[str] = []
    for i, item in enumerate(items):
        if item.get("type") != "reasoning":
            continue
        j = i + 1
        while j < len(items) and items[j].get("type") == "reasoning":
            j += 1
        if j == len(items):
            problems.append(
                f"item {i}: reasoning {item.get('id')!r} ends the transcript, cut off from its turn's output"
            )
        elif not is_model_output(items[j]):
            problems.append(
                f"item {i}: reasoning {item.get('id')!r} is followed by a {_describe(items[j])} (item {j}),"
                " not by the function_call or assistant message it produced"
            )
    return problems


def cut_points(items: Sequence[Mapping[str, Any]]) -> list[int]:
    """Positions k (0..len) where `items[:k]` and `items[k:]` may be separated without breaking pairing.

    A cut is safe when no call before it has its output after it, and it does not fall inside one
    model turn (a run of reasoning, function calls and assistant messages), which keeps reasoning
    with the calls it precedes and parallel calls together. Assumes `check_pairing(items)` is empty.
    """
    points: list[int] = []
    open_calls: set[str] = set()
    for k in range(len(items) + 1):
        inside_turn = 0 < k < len(items) and is_model_output(items[k - 1]) and is_model_output(items[k])
        if not open_calls and not inside_turn:
            points.append(k)
        if k < len(items):
            item = items[k]
            if item.get("type") == "function_call":
                open_calls.add(str(item.get("call_id")))
            elif item.get("type") == "function_call_output":
                open_calls.discard(str(item.get("call_id")))
    return points
