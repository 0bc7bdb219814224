"""Check Responses API payloads against the types the openai SDK ships, when OpenAI's spec is absent.

Why: a plain clone has no `../shared/specs/openai-openapi.json`, and OpenAI's description may not be
copied into this repository. The installed SDK carries the same protocol as typed models: requests as
`ResponseCreateParams` TypedDicts (`ResponseInputItemParam`, `ToolParam`), replies as the
`Response` pydantic model, errors as `ErrorObject`. pydantic validates against those. It is weaker
than the spec in known ways (the SDK's reply models allow unknown keys and type some fields looser,
e.g. `user` may be null), so the checks that need the spec itself skip with a reason instead
(`openai_spec.spec_available`). Problems are worded like the spec validator's, so both read alike.
"""

from __future__ import annotations

import functools
import typing
from typing import Any

from openai.types import ErrorObject
from openai.types.responses import Response, ResponseInputItemParam, ToolParam
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from pydantic import TypeAdapter, ValidationError

from tests.standins.openai_spec import Problem, json_path

_TYPE_TAGS = frozenset({"str", "int", "float", "bool", "none", "dict", "list"})


@functools.cache
def _adapter(schema_name: str) -> TypeAdapter[Any]:
    kinds: dict[str, Any] = {
        "CreateResponse": ResponseCreateParamsNonStreaming,
        "InputItem": ResponseInputItemParam,
        "Tool": ToolParam,
        "Response": Response,
    }
    if schema_name not in kinds:
        raise KeyError(f"{schema_name} has no SDK type to check against")
    return TypeAdapter(kinds[schema_name])


def create_response_properties() -> frozenset[str]:
    """The request parameters the SDK knows (`ResponseCreateParams`' keys)."""
    return frozenset(typing.get_type_hints(ResponseCreateParamsNonStreaming))


def problems(schema_name: str, instance: Any) -> list[Problem]:
    """Every violation of the SDK type standing for `schema_name`, at its most telling depth."""
    if schema_name == "ErrorResponse":
        return _error_problems(instance)
    try:
        _adapter(schema_name).validate_python(instance)
    except ValidationError as exc:
        return _telling(exc.errors(include_url=False))
    return []


def request_problems(body: Any) -> list[Problem]:
    """`problems("CreateResponse", body)`, each input item and tool checked on its own (shorter paths)."""
    if not isinstance(body, dict):
        return problems("CreateResponse", body)
    found = problems("CreateResponse", {k: v for k, v in body.items() if k not in ("input", "tools")})
    for key, schema in (("input", "InputItem"), ("tools", "Tool")):
        value = body.get(key)
        if key == "input" and isinstance(value, str):
            continue
        if key in body and not isinstance(value, list):
            found.append(Problem(key, f"{value!r} is not valid under any of the given schemas", "type"))
            continue
        for index, item in enumerate(value or []):
            found += [
                Problem(f"{key}[{index}]" + (f".{p.path}" if p.path else ""), p.message, p.keyword)
                for p in problems(schema, item)
            ]
    return found


def _error_problems(body: Any) -> list[Problem]:
    if not isinstance(body, dict) or "error" not in body:
        return [Problem("", "'error' is a required property", "required")]
    try:
        ErrorObject.model_validate(body["error"])
    except ValidationError as exc:
        return [
            Problem(f"error.{p.path}".rstrip("."), p.message, p.keyword)
            for p in _telling(exc.errors(include_url=False))
        ]
    return []


def _telling(errors: list[Any]) -> list[Problem]:
    """Drop union branches whose `type` tag did not match (never the intended one); keep the deepest."""
    wrong = [
        tuple(e["loc"][:-1]) for e in errors if e["loc"] and e["loc"][-1] == "type" and e["type"] == "literal_error"
    ]
    kept = [e for e in errors if not any(tuple(e["loc"][: len(w)]) == w for w in wrong)] or errors
    rendered = [_problem(e) for e in kept]
    depth = max(p.path.count(".") + p.path.count("[") for p in rendered)
    found: list[Problem] = []
    for problem in rendered:
        if problem.path.count(".") + problem.path.count("[") == depth and problem not in found:
            found.append(problem)
    return sorted(found[:3], key=lambda p: p.path)


def _problem(error: Any) -> Problem:
    """pydantic's error as the spec validator words it: a missing field is reported at its parent."""
    loc = [part for part in error["loc"] if isinstance(part, int) or not _is_tag(str(part))]
    if error["type"] == "missing" and loc:
        return Problem(json_path(loc[:-1]), f"'{loc[-1]}' is a required property", "required")
    keyword = "type" if error["type"].endswith("_type") else error["type"]
    return Problem(json_path(loc), f"{error['input']!r}: {error['msg']}", keyword)


def _is_tag(part: str) -> bool:
    """A union branch's name (`FunctionToolParam`, `list[...]`, `str`), not a field of the payload."""
    return part in _TYPE_TAGS or "[" in part or any(c.isupper() for c in part)
