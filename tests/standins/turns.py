"""Scripted model turns and how they become Responses API replies.

A test queues `Turn`s built with `reply_text`, `reply_calls`, `reply_error`,
`reply_incomplete` and `reply_refusal`; each is rendered against the request it answers, so the reply echoes what
was sent (model, tools, tool_choice, ...) the way the real API does, with fresh ids.
"""

from __future__ import annotations

import base64
import json
import math
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias

Json: TypeAlias = dict[str, Any]

DEFAULT_REASONING_TOKENS = 64
_ERROR_DEFAULTS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "Invalid request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    404: ("invalid_request_error", None, "Not found."),
    429: ("tokens", "rate_limit_exceeded", "Rate limit reached (scripted). Please try again later."),
    500: ("server_error", None, "The server had an error while processing your request. Sorry about that!"),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


@dataclass(frozen=True)
class Usage:
    """Token counts for a reply; None means estimate (about 4 characters a token)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int = 0
    reasoning_tokens: int | None = None


@dataclass(frozen=True)
class Message:
    """An assistant message with one `output_text` part."""

    text: str


@dataclass(frozen=True)
class Call:
    """A `function_call` item; `call_id` is generated unless given."""

    name: str
    arguments: Mapping[str, Any] | str
    call_id: str | None = None


@dataclass(frozen=True)
class Thought:
    """A `reasoning` item with `encrypted_content` and an optional summary."""

    summary: str | None = None


Item: TypeAlias = Message | Call | Thought


@dataclass(frozen=True)
class Turn:
    """One scripted reply: output items, or an HTTP error when `http_status` is not 200."""

    items: tuple[Item, ...] = ()
    status: Literal["completed", "incomplete"] = "completed"
    incomplete_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    http_status: int = 200
    error: Mapping[str, Any] | None = None
    retry_after: int | None = None
    edit: Callable[[Json], Json] | None = None

    def edited(self, edit: Callable[[Json], Json]) -> Turn:
        """Test-only hook: rewrite the rendered body (e.g. drop a required field) before it is checked."""
        return replace(self, edit=edit)


@dataclass(frozen=True)
class NotAResponse:
    """A 200 whose body is not a Response (a proxy's page, a broken compatible server). Deliberately
    outside the spec, so the stand-in sends it without recording a failure. `bytes` go out as text/html."""

    body: Json | bytes


TurnSource: TypeAlias = Turn | NotAResponse | Callable[[Json], Turn | Json]


@dataclass(frozen=True)
class Reply:
    """What the server writes back: status, extra headers, JSON body."""

    status: int
    headers: dict[str, str]
    body: Json


def new_id(prefix: str) -> str:
    """Ids shaped like the API's: `resp_`, `msg_`, `fc_`, `rs_` plus 48 hex digits; `call_` plus 24."""
    return f"{prefix}_{secrets.token_hex(12 if prefix == 'call' else 24)}"


def _thought(reasoning: bool | str) -> tuple[Item, ...]:
    if reasoning is False:
        return ()
    return (Thought(reasoning if isinstance(reasoning, str) else None),)


def reply_text(text: str, *, reasoning: bool | str = False, usage: Usage | None = None) -> Turn:
    """The model answers with a message (optionally after a reasoning item; a str becomes its summary)."""
    return Turn(items=(*_thought(reasoning), Message(text)), usage=usage or Usage())


CallSpec: TypeAlias = tuple[str, Mapping[str, Any]] | tuple[str, Mapping[str, Any], str] | Call


def reply_calls(
    calls: Sequence[CallSpec],
    *,
    reasoning: bool | str = False,
    text: str | None = None,
    usage: Usage | None = None,
) -> Turn:
    """The model calls functions: `[("search_docs", {"query": "x"}), ...]`, optionally `(name, args, call_id)`."""
    built = tuple(c if isinstance(c, Call) else Call(*c) for c in calls)
    preamble = (Message(text),) if text is not None else ()
    return Turn(items=(*_thought(reasoning), *preamble, *built), usage=usage or Usage())


def reply_incomplete(
    reason: str = "max_output_tokens",
    *,
    text: str | None = None,
    reasoning: bool | str = True,
    usage: Usage | None = None,
) -> Turn:
    """Generation stopped early: `status: incomplete`, usually only reasoning or a cut-off message."""
    items = (*_thought(reasoning), *((Message(text),) if text is not None else ()))
    return Turn(items=items, status="incomplete", incomplete_reason=reason, usage=usage or Usage())


def reply_refusal(text: str = "I'm sorry, but I can't help with that.", *, usage: Usage | None = None) -> Turn:
    """The model declines, as it does under structured outputs: its message holds one `refusal` part, no text."""

    def refuse(body: Json) -> Json:
        for item in body.get("output") or []:
            if item.get("type") == "message":
                item["content"] = [{"type": "refusal", "refusal": text}]
        return body

    return reply_text("", usage=usage).edited(refuse)


def reply_error(
    status: int = 500,
    *,
    retry_after: int | None = None,
    message: str | None = None,
    type: str | None = None,
    code: str | None = None,
    param: str | None = None,
) -> Turn:
    """An HTTP error in the API's shape; `retry_after` (whole seconds >= 1, as the spec types it) sets `retry-after`."""
    if status < 400:
        raise ValueError(f"an error turn needs a 4xx/5xx status, not {status}")
    if retry_after is not None and (not isinstance(retry_after, int) or retry_after < 1):
        raise ValueError("the spec types Retry-After as an integer >= 1")
    kind, default_code, default_message = _ERROR_DEFAULTS.get(status, _ERROR_DEFAULTS[500 if status >= 500 else 400])
    error = {"message": message or default_message, "type": type or kind, "param": param, "code": code or default_code}
    return Turn(http_status=status, error=error, retry_after=retry_after)


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
