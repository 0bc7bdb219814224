"""The strict-mode checker: passes every registered tool, flags each kind of violation."""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from tests.support.strict_schema import check_definition
from tools import v1_registry, v2_registry

GOOD: dict[str, Any] = {
    "type": "function",
    "name": "good",
    "description": "A fine tool.",
    "strict": True,
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "words"},
            "state": {"anyOf": [{"type": "string", "enum": ["open", "closed"]}, {"type": "null"}]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
            "filter": {"$ref": "#/$defs/Filter"},
        },
        "required": ["query", "state", "limit", "tags", "filter"],
        "additionalProperties": False,
        "$defs": {
            "Filter": {
                "type": "object",
                "properties": {"since": {"type": "string", "format": "date"}},
                "required": ["since"],
                "additionalProperties": False,
            }
        },
    },
}


def bad(
    path: list[str | int], value: Any = None, delete: bool = False, top: dict[str, Any] | None = None
) -> dict[str, Any]:
    d = copy.deepcopy(GOOD)
    if top:
        d.update(top)
        return d
    node: Any = d
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return d


P = ["parameters"]
CASES = {
    "not_strict": bad(["strict"], False),
    "bad_name": bad(["name"], "has spaces!"),
    "root_not_object": bad(P, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    "missing_required": bad(P + ["required"], ["query", "state", "limit", "tags"]),
    "unknown_required": bad(P + ["required"], ["query", "state", "limit", "tags", "filter", "ghost"]),
    "additional_properties": bad(P + ["additionalProperties"], delete=True),
    "free_form_object": bad(P + ["properties", "meta"], {"type": "object", "additionalProperties": {"type": "string"}}),
    "unsupported_keyword": bad(P + ["properties", "query", "minLength"], 3),
    "untyped": bad(P + ["properties", "query"], {"description": "anything at all"}),
    "bad_type": bad(P + ["properties", "limit", "type"], "int"),
    "array_without_items": bad(P + ["properties", "tags"], {"type": "array"}),
    "unsupported_format": bad(P + ["$defs", "Filter", "properties", "since", "format"], "semver"),
    "bad_ref": bad(P + ["properties", "filter"], {"$ref": "#/$defs/Missing"}),
    "too_deep": bad(P + ["properties", "deep"], {}),
    "too_many_properties": bad(P + ["properties", "wide"], {}),
    "too_many_enum_values": bad(
        P + ["properties", "state"], {"type": "string", "enum": [f"v{i}" for i in range(1001)]}
    ),
    "too_much_text": bad(P + ["properties", "state"], {"type": "string", "enum": ["x" * 60_000, "y" * 61_000]}),
}


def _nest(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"n": node}, "required": ["n"], "additionalProperties": False}
    return node


CASES["too_deep"]["parameters"]["properties"]["deep"] = _nest(12)
CASES["too_many_properties"]["parameters"]["properties"]["wide"] = {
    "type": "object",
    "properties": {f"p{i}": {"type": "string"} for i in range(5001)},
    "required": [f"p{i}" for i in range(5001)],
    "additionalProperties": False,
}
for name in ("too_deep", "too_many_properties", "free_form_object"):
    props = CASES[name]["parameters"]["properties"]
    CASES[name]["parameters"]["required"] = list(props)


def test_good_definition_passes() -> None:
    assert check_definition(GOOD) == []


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_problem_kind_is_flagged(kind: str) -> None:
    kinds = {v.kind for v in check_definition(CASES[kind])}
    assert kind in kinds


def test_object_without_properties_is_free_form() -> None:
    d = bad(P + ["properties", "filter"], {"type": "object", "additionalProperties": False})
    assert [v.kind for v in check_definition(d)] == ["free_form_object"]


@pytest.mark.parametrize(
    "keyword,value",
    [
        ("allOf", [{"type": "string"}]),
        ("oneOf", [{"type": "string"}]),
        ("not", {"type": "null"}),
        ("patternProperties", {}),
        ("default", "x"),
    ],
)
def test_unsupported_composition_and_keywords(keyword: str, value: Any) -> None:
    d = bad(P + ["properties", "query", keyword], value)
    assert "unsupported_keyword" in {v.kind for v in check_definition(d)}


@pytest.mark.parametrize(
    "definition", v2_registry().definitions() + v1_registry().definitions(), ids=lambda d: d["name"]
)
def test_every_registered_tool_is_strict(definition: dict[str, Any]) -> None:
    assert check_definition(definition) == []


def test_pydantic_dict_and_default_fields_are_caught() -> None:
    class Loose(BaseModel):
        meta: dict[str, str]
        limit: int = 5

    found = {v.kind for v in check_definition(openai.pydantic_responses_function_tool(Loose, name="loose"))}
    assert "free_form_object" in found and "unsupported_keyword" in found
