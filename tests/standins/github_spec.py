"""Validate GitHub REST traffic and webhook payloads against GitHub's OpenAPI description.

The trimmed copy in `tests/github/openapi.json` (see the README there) is OpenAPI 3.0: a schema
with `nullable: true` may also be null. We rewrite those into `anyOf: [schema, {type: null}]`
once, then validate with jsonschema (draft 4 keywords, which 3.0 schemas use) with the whole file
as the root resource so `$ref`s resolve. `skeleton` builds the smallest instance of a schema that
validates, so the stand-in's replies carry every field GitHub's clients may rely on.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

SPEC = Path(__file__).resolve().parents[1] / "github" / "openapi.json"
URI = "urn:github-spec"
# Errors GitHub may answer to any operation though the description lists them per operation only
# sometimes: bad credentials, forbidden and rate limits, server errors, and a permanent redirect (GitHub's
# best practices: any request may be answered 301, e.g. for a transferred issue). Their body is a basic-error.
GENERIC_ERRORS = {301, 401, 403, 429, 500, 502, 503}


class SpecViolation(AssertionError):
    """A request, response or payload that GitHub's description does not allow."""


def _nullable(node: Any) -> Any:
    if isinstance(node, dict):
        node = {k: _nullable(v) for k, v in node.items()}
        if node.pop("nullable", False):
            return {"anyOf": [node, {"type": "null"}]}
        return node
    if isinstance(node, list):
        return [_nullable(v) for v in node]
    return node


@functools.cache
def spec() -> dict[str, Any]:
    return _nullable(json.loads(SPEC.read_text(encoding="utf-8")))


@functools.cache
def _registry() -> Registry[Any]:
    return Registry().with_resource(URI, Resource.from_contents(spec(), default_specification=DRAFT4))


def _validator(pointer: str) -> Draft4Validator:
    return Draft4Validator({"$ref": f"{URI}#{pointer}"}, registry=_registry())


@functools.cache
def _routes() -> list[tuple[re.Pattern[str], str, str]]:
    out = []
    for path, item in spec()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", r"[^/]+", path) + "$")
        for method in item:
            if method != "parameters":
                out.append((pattern, method, path))
    return out


def operation(method: str, path: str) -> tuple[str, dict[str, Any]]:
    """The (template path, operation) a request matches; SpecViolation when GitHub has none."""
    for pattern, op_method, template in _routes():
        if op_method == method.lower() and pattern.match(path):
            return template, spec()["paths"][template][op_method]
    raise SpecViolation(f"{method} {path} is not an operation in GitHub's description")


def _pointer(*parts: str) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def _check(pointer: str, instance: Any, what: str) -> None:
    errors = sorted(_validator(pointer).iter_errors(instance), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "<root>"
        raise SpecViolation(f"{what}: {where}: {first.message[:300]}")


def check_request(method: str, path: str, query: dict[str, str], body: Any) -> str:
    """Query parameters and JSON body of a request against its operation; returns the operationId."""
    template, op = operation(method, path)
    params = op.get("parameters", []) + spec()["paths"][template].get("parameters", [])
    for i, param in enumerate(op.get("parameters", [])):
        resolved = _resolve(param)
        if resolved.get("in") != "query" or resolved["name"] not in query:
            continue
        value: Any = query[resolved["name"]]
        kind = resolved.get("schema", {}).get("type")
        if kind == "integer":
            if not re.fullmatch(r"-?\d+", value):
                raise SpecViolation(f"{op['operationId']}: query {resolved['name']}={value!r} is not an integer")
            value = int(value)
        _check(
            _param_pointer(template, method, param, i) + "/schema",
            value,
            f"{op['operationId']} query {resolved['name']}",
        )
    known = {_resolve(p)["name"] for p in params if _resolve(p).get("in") == "query"}
    unknown = set(query) - known
    if unknown:
        raise SpecViolation(f"{op['operationId']}: unknown query parameters {sorted(unknown)}")
    if "requestBody" in op:
        if body is None:
            raise SpecViolation(f"{op['operationId']}: a JSON body is required")
        _check(
            _pointer("paths", template, method.lower(), "requestBody", "content", "application/json", "schema"),
            body,
            f"{op['operationId']} request body",
        )
    return str(op["operationId"])


def check_response(method: str, path: str, status: int, body: Any) -> None:
    """A response body against the operation's schema for its status (statuses it lists only)."""
    template, op = operation(method, path)
    responses = op.get("responses", {})
    if str(status) not in responses and status in GENERIC_ERRORS:
        _check("/components/schemas/basic-error", body, f"{op['operationId']} {status} response")
        return
    if str(status) not in responses:
        raise SpecViolation(f"{op['operationId']}: status {status} is not one GitHub lists ({sorted(responses)})")
    response = _resolve(responses[str(status)])
    content = response.get("content", {}).get("application/json")
    if content is None:
        return
    if "$ref" in responses[str(status)]:
        pointer = responses[str(status)]["$ref"][1:] + "/content/application~1json/schema"
    else:
        pointer = _pointer(
            "paths", template, method.lower(), "responses", str(status), "content", "application/json", "schema"
        )
    _check(pointer, body, f"{op['operationId']} {status} response")


def check_webhook(name: str, payload: Any) -> None:
    """A webhook payload (`issues-edited`, `push`, ...) against its schema."""
    hook = spec()["x-webhooks"][name]["post"]
    _check(
        _pointer("x-webhooks", name, "post", "requestBody", "content", "application/json", "schema"),
        payload,
        f"webhook {name}",
    )
    assert hook


def skeleton(schema_name: str) -> dict[str, Any]:
    """The smallest valid instance of `components.schemas[schema_name]` (overlay real fields on it)."""
    return copy.deepcopy(_skeleton_cached(schema_name))


@functools.cache
def _skeleton_cached(schema_name: str) -> Any:
    return _fill(spec()["components"]["schemas"][schema_name], 0)


def _fill(schema: dict[str, Any], depth: int) -> Any:
    schema = _resolve(schema)
    if "anyOf" in schema:
        branches = [b for b in schema["anyOf"] if b.get("type") != "null"]
        if depth > 12 and len(branches) < len(schema["anyOf"]):
            return None  # deep and nullable: stop filling
        return _fill(branches[0], depth + 1)
    if "oneOf" in schema:
        return _fill(schema["oneOf"][0], depth + 1)
    if "allOf" in schema:
        out: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = _fill(part, depth + 1)
            if isinstance(value, dict):
                out.update(value)
        return out
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: _fill(props.get(name, {"type": "string"}), depth + 1) for name in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "integer" or kind == "number":
        return 1
    if kind == "boolean":
        return False
    fmt = schema.get("format")
    if fmt == "date-time":
        return "2026-01-01T00:00:00Z"
    if fmt == "uri":
        return "https://github.invalid/"
    return "x"


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec()
        for part in node["$ref"][2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def _param_pointer(template: str, method: str, param: dict[str, Any], index: int) -> str:
    if "$ref" in param:
        return param["$ref"][1:]
    return _pointer("paths", template, method.lower(), "parameters", str(index))
