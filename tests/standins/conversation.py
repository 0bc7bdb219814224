"""Rules the real Responses API enforces that the OpenAPI schema cannot express.

Requests: unknown top-level parameters, function calls and outputs that do not pair up by
`call_id`, and reasoning items handled wrongly across turns (with `store: false` the API keeps
nothing, so a reasoning item must come back with its `encrypted_content`, unaltered, and the
items it produced must not come back without it). The messages mirror the real API's 400/404s.

Replies: a script must not do what a real model under these settings cannot do, e.g. call a
tool that was not offered, call anything under `tool_choice: "none"`, call several tools with
`parallel_tool_calls: false`, or pass arguments a strict tool's schema rejects.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from tests.standins import openai_spec

Json = dict[str, Any]
_NEW_TURN_ROLES = {"user", "system", "developer"}
_OUTPUT = "function_call_output"


@dataclass(frozen=True)
class Refusal:
    """An error the real API would answer with instead of a response."""

    status: int
    message: str
    param: str | None = "input"
    code: str | None = None
    type: str = "invalid_request_error"

    def body(self) -> Json:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


class Ledger:
    """Remembers what this stand-in issued (reasoning secrets, which items a reasoning item produced)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: dict[str, str] = {}
        self._produced_by: dict[str, str] = {}

    def note_reply(self, body: Json) -> None:
        output = body.get("output")
        with self._lock:
            reasoning_id: str | None = None
            for item in output if isinstance(output, list) else []:
                if not isinstance(item, dict):
                    continue
                if item.get("type") == "reasoning":
                    reasoning_id = item.get("id")
                    if reasoning_id and isinstance(item.get("encrypted_content"), str):
                        self._secrets[reasoning_id] = item["encrypted_content"]
                elif reasoning_id and isinstance(item.get("id"), str):
                    self._produced_by[item["id"]] = reasoning_id

    def check_request(self, request: Json) -> list[Refusal]:
        """Refusals for a schema-valid request, in the order the API would find them."""
        allowed = openai_spec.object_properties("CreateResponse")
        unknown = [key for key in request if key not in allowed]
        refusals = [Refusal(400, f"Unknown parameter: '{key}'.", key, "unknown_parameter") for key in unknown]
        refusals += _strict_format(request)
        items = request.get("input")
        if not isinstance(items, list) or request.get("previous_response_id") or request.get("conversation"):
            return refusals
        items = [i for i in items if isinstance(i, dict)]
        refusals += _pairing(items)
        with self._lock:
            refusals += self._reasoning(items, store=request.get("store") is not False)
        return refusals

    def _reasoning(self, items: list[Json], *, store: bool) -> list[Refusal]:
        refusals = []
        present = {i.get("id") for i in items if i.get("type") == "reasoning"}
        for index, item in enumerate(items):
            item_id = item.get("id")
            if item.get("type") == "reasoning" and item_id in self._secrets:
                secret = item.get("encrypted_content")
                if secret is None and not store:
                    refusals.append(
                        Refusal(
                            404,
                            f"Item with id '{item_id}' not found. Items are not "
                            "persisted when `store` is set to false. "
                            "Try again with `store` set to true, or remove this item from your input.",
                        )
                    )
                elif secret is not None and secret != self._secrets[item_id]:
                    message = f"The encrypted content for item {item_id} could not be verified."
                    refusals.append(Refusal(400, message, code="invalid_encrypted_content"))
                following = items[index + 1] if index + 1 < len(items) else None
                if following is None or following.get("role") in _NEW_TURN_ROLES or following.get("type") == _OUTPUT:
                    refusals.append(
                        Refusal(
                            400,
                            f"Item '{item_id}' of type 'reasoning' was provided without its required following item.",
                        )
                    )
            elif item_id in self._produced_by and self._produced_by[item_id] not in present:
                refusals.append(
                    Refusal(
                        400,
                        f"Item '{item_id}' of type '{item.get('type')}' was provided without its required "
                        f"'reasoning' item: '{self._produced_by[item_id]}'.",
                    )
                )
        return refusals


def _pairing(items: list[Json]) -> list[Refusal]:
    calls = [i.get("call_id") for i in items if i.get("type") == "function_call"]
    outputs = [i.get("call_id") for i in items if i.get("type") == "function_call_output"]
    orphans = [cid for cid in outputs if cid not in calls]
    unanswered = [cid for cid in calls if cid not in outputs]
    refusals = [Refusal(400, f"No tool call found for function call output with call_id {cid}.") for cid in orphans]
    refusals += [Refusal(400, f"No tool output found for function call {cid}.") for cid in unanswered]
    return refusals


def unrealistic(request: Json, body: Json) -> list[str]:
    """Ways a scripted reply does something a real model could not do for this request."""
    output = body.get("output")
    items = output if isinstance(output, list) else []
    calls = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call"]
    if not calls:
        return _off_format(request, items)
    found = []
    if request.get("tool_choice") == "none":
        found.append(f"the reply calls {[c.get('name') for c in calls]} but the request set tool_choice='none'")
    if request.get("parallel_tool_calls") is False and len(calls) > 1:
        found.append(f"the reply makes {len(calls)} calls but the request set parallel_tool_calls=false")
    offered = [t for t in request.get("tools") or [] if isinstance(t, dict) and t.get("type") == "function"]
    tools = {t.get("name"): t for t in offered}
    for call in calls:
        tool = tools.get(call.get("name"))
        if tool is None:
            name = call.get("name")
            found.append(f"the reply calls {name!r}, which the request did not offer (tools: {sorted(tools)})")
            continue
        if not tool.get("strict") or not isinstance(tool.get("parameters"), dict):
            continue
        try:
            arguments = json.loads(call.get("arguments", ""))
        except json.JSONDecodeError as err:
            found.append(f"call {call.get('name')!r}: arguments are not JSON ({err})")
            continue
        for error in Draft202012Validator(tool["parameters"]).iter_errors(arguments):
            where = openai_spec.json_path(error.absolute_path) or "<arguments>"
            found.append(f"call {call.get('name')!r}: {where}: {error.message} (strict schema of the tool)")
    return found


def _json_schema_format(request: Json) -> Json | None:
    """The request's `text.format` when it is a strict json_schema (structured outputs), else None."""
    text = request.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    return fmt if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and fmt.get("strict") else None


def _strict_format(request: Json) -> list[Refusal]:
    """Structured outputs' rule for a strict schema: every object lists all its properties as required and
    sets additionalProperties to false (the API refuses the request otherwise)."""
    fmt = _json_schema_format(request)
    if fmt is None:
        return []
    problems: list[str] = []

    def walk(node: Any, where: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" or "properties" in node:
                if node.get("additionalProperties") is not False:
                    problems.append(
                        f"In context={where}, 'additionalProperties' is required to be supplied and to be false."
                    )
                missing = sorted(set(node.get("properties") or {}) - set(node.get("required") or []))
                if missing:
                    problems.append(
                        f"In context={where}, 'required' is required to be supplied and to be an array including"
                        f" every key in properties. Missing '{missing[0]}'."
                    )
            for key, value in node.items():
                walk(value, (*where, key))
        elif isinstance(node, list):
            for value in node:
                walk(value, where)

    walk(fmt.get("schema"), ())
    name = fmt.get("name")
    return [
        Refusal(400, f"Invalid schema for response_format '{name}': {p}", "text.format.schema", "invalid_json_schema")
        for p in problems[:1]
    ]


def _off_format(request: Json, items: list[Any]) -> list[str]:
    """Under a strict json_schema format a model's message is JSON that the schema accepts."""
    fmt = _json_schema_format(request)
    if fmt is None:
        return []
    found = []
    for item in items:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        parts = [p for p in item.get("content") or [] if isinstance(p, dict)]
        if any(p.get("type") == "refusal" for p in parts):
            continue  # how structured outputs decline: a `refusal` part instead of the schema's JSON
        text = "".join(p.get("text", "") for p in parts if p.get("type") == "output_text")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            found.append(f"the reply's text is not JSON under the strict json_schema format ({err})")
            continue
        for error in Draft202012Validator(fmt.get("schema") or {}).iter_errors(value):
            where = openai_spec.json_path(error.absolute_path) or "<text>"
            found.append(f"the reply's text: {where}: {error.message} (strict json_schema format)")
    return found
