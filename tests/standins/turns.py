"""Scripted model turns and how they become Responses API replies.

A test queues `Turn`s built with `reply_text`, `reply_calls`, `reply_error`,
`reply_incomplete` and `reply_refusal`; each is rendered against the request it answers, so the reply echoes what
was sent (model, tools, tool_choice, ...) the way the real API does, with fresh ids.
"""

from __future__ import annotations

import secrets
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
