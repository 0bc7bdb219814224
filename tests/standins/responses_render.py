"""How a scripted `Turn` becomes a Responses API reply: rendered against the request it answers, so the reply
echoes what was sent (model, tools, tool_choice, ...) the way the real API does, with fresh ids and a usage
estimated from the request; and what the stand-in reads back out of a request (call outputs, the user's text)."""

from __future__ import annotations

import base64
import json
import math
import secrets
import time
from typing import Any

from tests.standins.turns import DEFAULT_REASONING_TOKENS, Call, Item, Json, Message, Reply, Thought, Turn, new_id


def _estimate(value: Any) -> int:
    return max(1, math.ceil(len(json.dumps(value, ensure_ascii=False)) / 4))


def _render_item(item: Item, status: str) -> Json:
    if isinstance(item, Message):
        part = {"type": "output_text", "text": item.text, "annotations": [], "logprobs": []}
        return {"id": new_id("msg"), "type": "message", "status": status, "role": "assistant", "content": [part]}
    if isinstance(item, Call):
        return {
            "id": new_id("fc"),
            "type": "function_call",
            "status": "completed",
            "arguments": _arguments(item),
            "call_id": item.call_id or new_id("call"),
            "name": item.name,
        }
    summary = [{"type": "summary_text", "text": item.summary}] if item.summary else []
    secret = "gAAAAA" + base64.urlsafe_b64encode(secrets.token_bytes(48)).decode()
    return {"id": new_id("rs"), "type": "reasoning", "summary": summary, "encrypted_content": secret}


def _arguments(call: Call) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)


def _visible_text(item: Message | Call) -> str:
    return item.text if isinstance(item, Message) else item.name + _arguments(item)


def _usage(turn: Turn, request: Json) -> Json:
    """Given numbers win; otherwise estimate, and an incomplete turn used its whole `max_output_tokens`."""
    given = turn.usage
    visible = [_visible_text(i) for i in turn.items if isinstance(i, (Message, Call))]
    input_tokens = given.input_tokens
    if input_tokens is None:
        input_tokens = _estimate([request.get("instructions"), request.get("input"), request.get("tools")])
    output_tokens = given.output_tokens
    if output_tokens is None and turn.status == "incomplete" and request.get("max_output_tokens"):
        output_tokens = int(request["max_output_tokens"])
    reasoning = given.reasoning_tokens
    if reasoning is None and any(isinstance(i, Thought) for i in turn.items):
        reasoning = output_tokens if output_tokens is not None and not visible else DEFAULT_REASONING_TOKENS
    reasoning = reasoning or 0
    if output_tokens is None:
        output_tokens = (_estimate("".join(visible)) if visible else 0) + reasoning
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": given.cached_tokens, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input_tokens + output_tokens,
    }


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


def response_body(turn: Turn, request: Json) -> Json:
    """A full `Response` for this turn, echoing the request's settings like the real API does."""
    item_status = "completed" if turn.status == "completed" else "incomplete"
    output = [_render_item(item, item_status) for item in turn.items]
    now = int(time.time())
    return {
        "id": new_id("resp"),
        "object": "response",
        "created_at": now,
        "status": turn.status,
        "completed_at": now if turn.status == "completed" else None,
        "background": False,
        "error": None,
        "incomplete_details": {"reason": turn.incomplete_reason} if turn.status == "incomplete" else None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "max_tool_calls": request.get("max_tool_calls"),
        "metadata": _or(request.get("metadata"), {}),
        "model": request.get("model"),
        "output": output,
        "parallel_tool_calls": _or(request.get("parallel_tool_calls"), True),
        "previous_response_id": request.get("previous_response_id"),
        "prompt_cache_key": request.get("prompt_cache_key"),
        "reasoning": _or(request.get("reasoning"), {"effort": None, "summary": None}),
        "safety_identifier": request.get("safety_identifier"),
        "service_tier": "default",
        "store": _or(request.get("store"), True),
        "temperature": _or(request.get("temperature"), 1.0),
        "text": _or(request.get("text"), {"format": {"type": "text"}}),
        "tool_choice": _or(request.get("tool_choice"), "auto"),
        "tools": _or(request.get("tools"), []),
        "top_logprobs": _or(request.get("top_logprobs"), 0),
        "top_p": _or(request.get("top_p"), 1.0),
        "truncation": _or(request.get("truncation"), "disabled"),
        "usage": _usage(turn, request),
    }


def render(turn: Turn, request: Json) -> Reply:
    """Turn -> HTTP reply. Error turns carry `retry-after` when set."""
    if turn.http_status != 200:
        headers = {"retry-after": str(turn.retry_after)} if turn.retry_after is not None else {}
        body: Json = {"error": dict(turn.error or {})}
    else:
        headers, body = {}, response_body(turn, request)
    if turn.edit is not None:
        body = turn.edit(body)
    return Reply(turn.http_status, headers, body)


def call_outputs(request: Json) -> dict[str, Any]:
    """For dynamic turns: call_id -> output of each `function_call_output` the request carries."""
    items = request.get("input")
    if not isinstance(items, list):
        return {}
    outputs = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return {i.get("call_id"): i.get("output") for i in outputs}


def last_user_text(request: Json) -> str:
    """For dynamic turns: the text of the latest user message ('' if none)."""
    items = request.get("input")
    if isinstance(items, str):
        return items
    for item in reversed(items if isinstance(items, list) else []):
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
    return ""
