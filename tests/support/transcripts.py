"""Responses API input items for the context tests (test_pairing, test_context, test_context_property):
messages, reasoning, calls and their outputs, and a typical investigation."""

from __future__ import annotations

import json

from workers.agent.pairing import Item

__all__ = ["Item", "assistant", "call", "investigation", "output", "outputs_of", "reasoning", "user", "words"]


def user(text: str) -> Item:
    return {"type": "message", "role": "user", "content": text}


def assistant(text: str, mid: str = "msg_1") -> Item:
    return {
        "type": "message",
        "role": "assistant",
        "id": mid,
        "status": "completed",
        "content": [{"type": "output_text", "text": text}],
    }


def reasoning(rid: str, encrypted: int = 40) -> Item:
    return {"type": "reasoning", "id": rid, "summary": [], "encrypted_content": "e" * encrypted}


def call(call_id: str, name: str = "search_issues", arguments: str = '{"query": "DST"}') -> Item:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


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
        items += [
            reasoning(f"rs_{i}"),
            call(f"call_{i}", arguments=json.dumps({"query": f"q{i}"})),
            output(f"call_{i}", words(size)),
        ]
    return items
