"""Context management: fit a transcript of Responses input items into the model's window.

The loop calls `fit` before every model call. Under budget nothing changes. Over budget, old tool
results are cleared first (cheap, keeps every item and so the pairing), then the middle of the
run is compacted into one summary message. Tool results are cut earlier, when they are made
(`tools.results.cut`, which stashes the full text for `read_more`). Pure: no I/O.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from atlas import tokens
from atlas.text import text_of
from workers.agent.compaction import call_signature, compact, extractive_summary
from workers.agent.pairing import Item, check_pairing

ITEM_OVERHEAD = 4
"""Tokens each input item costs beyond its text (role and item framing), as for chat messages."""
ENCRYPTED_CHARS_PER_TOKEN = 4
"""Encrypted reasoning is counted as len/4 tokens. The base64 ciphertext runs about 5 characters
per reasoning token, so this slightly overestimates, which is the safe side for a budget."""
CLEARED_PREFIX = "[cleared: "

Summarize = Callable[[list[Item]], str]


@dataclass(frozen=True)
class ContextBudget:
    """The window and how it is spent; `output_reserve` is also sent as `max_output_tokens`."""

    window: int = 64_000
    output_reserve: int = 25_000
    keep_recent_results: int = 2
    result_token_limit: int = 1_500

    @property
    def input_limit(self) -> int:
        """Input tokens a request may use so that the reserved output still fits the window."""
        return self.window - self.output_reserve


@functools.lru_cache(maxsize=4096)
def _count(text: str) -> int:
    return tokens.count(text)


@functools.lru_cache(maxsize=4096)
def _bound(text: str) -> int:
    return tokens.bound(text)


def count_item(item: Mapping[str, Any], counter: Callable[[str], int] = _count) -> int:
    """Estimated input tokens of one item: its text plus `ITEM_OVERHEAD`.

    Messages count their text parts (images and files count nothing), calls their name and
    arguments, outputs their text, reasoning its summary and content text plus encrypted content
    at len/4. Unknown item types count their JSON.
    """
    kind = item.get("type")
    if kind == "message":
        body = counter(text_of(item.get("content")))
    elif kind == "function_call":
        body = counter(str(item.get("name", ""))) + counter(str(item.get("arguments", "")))
    elif kind == "function_call_output":
        body = counter(text_of(item.get("output")))
    elif kind == "reasoning":
        texts = text_of(item.get("summary")) + text_of(item.get("content"))
        body = counter(texts) + len(item.get("encrypted_content") or "") // ENCRYPTED_CHARS_PER_TOKEN
    else:
        body = counter(json.dumps(item, default=str))
    return ITEM_OVERHEAD + body


def count_items(
    items: Sequence[Mapping[str, Any]],
    instructions: str = "",
    tools: Sequence[Mapping[str, Any]] = (),
    counter: Callable[[str], int] = _count,
) -> int:
    """Estimated input tokens of a request: every item, the instructions, and the tools' JSON schemas."""
    fixed = (ITEM_OVERHEAD + counter(instructions) if instructions else 0) + (
        counter(json.dumps(list(tools), default=str)) if tools else 0
    )
    return fixed + sum(count_item(item, counter) for item in items)


def bound_items(
    items: Sequence[Mapping[str, Any]], instructions: str = "", tools: Sequence[Mapping[str, Any]] = ()
) -> int:
    """At least `count_items` of the same request, counted by bytes (atlas/tokens.py `bound`): no tokenizer."""
    return count_items(items, instructions, tools, _bound)


def cleared_placeholder(call: Mapping[str, Any]) -> str:
    """What a cleared result says: which call it was, and that calling again brings it back."""
    return f"{CLEARED_PREFIX}{call_signature(call)} result removed to save context; call it again if needed]"


def clear_results(items: Sequence[Item], keep_recent: int) -> tuple[list[Item], int]:
    """Replace the output of every tool result but the last `keep_recent` by a placeholder.

    Index-preserving: the output items stay (so pairing holds), only their `output` changes.
    Results already cleared, or no longer than their placeholder, are left alone. Returns the
    new list (rewritten items are copies) and how many results were cleared.
    """
    calls = {item.get("call_id"): item for item in items if item.get("type") == "function_call"}
    positions = [i for i, item in enumerate(items) if item.get("type") == "function_call_output"]
    old = positions[: max(len(positions) - keep_recent, 0)]
    result = list(items)
    cleared = 0
    for i in old:
        item = items[i]
        text = text_of(item.get("output"))
        call = calls.get(item.get("call_id"), {"name": "unknown_tool", "arguments": ""})
        placeholder = cleared_placeholder(call)
        if text.startswith(CLEARED_PREFIX) or _count(text) <= _count(placeholder):
            continue
        result[i] = {**item, "output": placeholder}
        cleared += 1
    return result, cleared


@dataclass(frozen=True)
class FitResult:
    """What `fit` sends, what it did, and the pairing problems of what it sends (empty: fine)."""

    items: list[Item]
    cleared: int
    compacted: bool
    tokens_before: int
    tokens_after: int
    problems: list[str] = field(default_factory=list)


def fit(
    items: Sequence[Item],
    *,
    budget: ContextBudget,
    instructions: str = "",
    tools: Sequence[Mapping[str, Any]] = (),
    summarize: Summarize = extractive_summary,
) -> FitResult:
    """Bring a request within `budget.input_limit` input tokens: clear old results, then compact.

    Never mutates `items`; untouched items are shared with the returned list. A transcript that
    already breaks pairing is returned unchanged with its problems (cutting it would hide them).
    `tokens_after` can stay over the limit when the question and the latest turn alone exceed it:
    the caller then stops on budget. `summarize` gets the dropped items as they were before
    clearing; if it raises or returns nothing, `extractive_summary` is used instead.
    """
    limit = budget.input_limit

    def measure(candidate: Sequence[Item]) -> int:
        return count_items(candidate, instructions, tools)

    before = measure(items)
    problems = check_pairing(items)
    if before <= limit or problems:
        return FitResult(list(items), 0, False, before, before, problems)

    cleared_items, cleared = clear_results(items, budget.keep_recent_results)
    after = measure(cleared_items)
    compacted = False
    if after > limit:
        compaction = compact(
            cleared_items,
            originals=items,
            keep_recent_results=budget.keep_recent_results,
            limit=limit,
            measure=measure,
            summarize=summarize,
        )
        if compaction is not None:
            cleared_items, compacted = compaction, True
            after = measure(cleared_items)
    return FitResult(cleared_items, cleared, compacted, before, after, check_pairing(cleared_items))


def fit_call(
    items: Sequence[Item],
    *,
    budget: ContextBudget,
    instructions: str = "",
    tools: Sequence[Mapping[str, Any]] = (),
    summarize: Summarize = extractive_summary,
) -> FitResult:
    """`fit` as the loop asks it before each model call: a request within the limit by its bytes alone is sent as
    it is, its bytes standing for its tokens (an upper bound), so nothing is counted and a worker whose runs stay
    short never builds the tokenizer (issue 40)."""
    plain = bound_items(items, instructions, tools)
    problems = check_pairing(items)
    if plain <= budget.input_limit:
        return FitResult(list(items), 0, False, plain, plain, problems)
    return fit(items, budget=budget, instructions=instructions, tools=tools, summarize=summarize)
