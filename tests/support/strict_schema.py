"""Report where a function tool definition breaks OpenAI strict mode (structured outputs).

Strict mode accepts a subset of JSON Schema: the root is an object (not anyOf); every object lists
every property in `required` and sets `additionalProperties: false`; there are no free-form maps;
composition other than anyOf (allOf, oneOf, not, if/then/else, dependent*) is unsupported; only a
few type keywords are supported (pattern, format; minimum/maximum/exclusive*, multipleOf; minItems,
maxItems); and there are size limits (nesting depth, property count, enum values, total text).
Optional values are expressed as a required field whose type admits null.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal[
    "not_strict",
    "bad_name",
    "root_not_object",
    "missing_required",
    "unknown_required",
    "additional_properties",
    "free_form_object",
    "unsupported_keyword",
    "untyped",
    "bad_type",
    "array_without_items",
    "unsupported_format",
    "bad_ref",
    "too_deep",
    "too_many_properties",
    "too_many_enum_values",
    "too_much_text",
]

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
SUPPORTED = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
}
FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000
MAX_TEXT = 120_000


@dataclass(frozen=True)
class Violation:
    """One problem: its kind, where (a JSON-pointer-like path) and a sentence for humans."""

    kind: Kind
    path: str
    detail: str


def check_definition(definition: dict[str, Any]) -> list[Violation]:
    """Every strict-mode violation in a Responses (or Chat Completions) function tool definition."""
    fn = definition.get("function", definition) if definition.get("type") == "function" else definition
    found: list[Violation] = []
    if fn.get("strict") is not True:
        found.append(Violation("not_strict", "/strict", "strict must be true"))
    name = fn.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        found.append(Violation("bad_name", "/name", f"name {name!r} must match {NAME.pattern}"))
    params = fn.get("parameters")
    if not isinstance(params, dict):
        return found + [Violation("root_not_object", "/parameters", "parameters must be an object schema")]
    return found + check_schema(params)


def check_schema(root: dict[str, Any]) -> list[Violation]:
    """Every strict-mode violation in a parameters schema."""
    walker = _Walker(root)
    if root.get("type") != "object" or "anyOf" in root:
        walker.add("root_not_object", "", "the root must be {'type': 'object'} and not anyOf")
    walker.visit(root, "", 0)
    for key in ("$defs", "definitions"):
        for def_name, sub in (root.get(key) or {}).items():
            walker.visit(sub, f"/{key}/{def_name}", 0)
    walker.totals()
    return walker.found


class _Walker:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.found: list[Violation] = []
        self.properties = 0
        self.enum_values = 0
        self.text = 0

    def add(self, kind: Kind, path: str, detail: str) -> None:
        self.found.append(Violation(kind, path or "/", detail))

    def visit(self, node: Any, path: str, depth: int) -> None:
        if not isinstance(node, dict):
            self.add("untyped", path, "a schema must be an object (true/false schemas are not supported)")
            return
        if depth > MAX_DEPTH:
            self.add("too_deep", path, f"nesting deeper than {MAX_DEPTH} levels")
            return
        for key in node:
            if key not in SUPPORTED:
                self.add("unsupported_keyword", f"{path}/{key}", f"keyword {key!r} is not supported in strict mode")
        if "$ref" in node:
            self._ref(node, path)
            return
        if "anyOf" in node:
            for i, variant in enumerate(node["anyOf"] if isinstance(node["anyOf"], list) else []):
                self.visit(variant, f"{path}/anyOf/{i}", depth + 1)
            return
        self._enum(node, path)
        types = node.get("type")
        type_list = types if isinstance(types, list) else [types] if types is not None else []
        if not type_list and "enum" not in node and "const" not in node:
            self.add("untyped", path, "no type: free-form values are not allowed")
            return
        for t in type_list:
            if t not in TYPES:
                self.add("bad_type", f"{path}/type", f"unknown type {t!r}")
        if "object" in type_list:
            self._object(node, path, depth)
        if "array" in type_list:
            if isinstance(node.get("items"), dict):
                self.visit(node["items"], f"{path}/items", depth + 1)
            else:
                self.add("array_without_items", path, "arrays need an 'items' schema")
        fmt = node.get("format")
        if fmt is not None and fmt not in FORMATS:
            self.add("unsupported_format", f"{path}/format", f"format {fmt!r} is not supported")

    def _object(self, node: dict[str, Any], path: str, depth: int) -> None:
        props = node.get("properties")
        if node.get("additionalProperties") is not False:
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) or extra is True:
                self.add("free_form_object", path, "maps (additionalProperties as a schema or true) are not allowed")
            self.add("additional_properties", path, "objects must set additionalProperties: false")
        if not isinstance(props, dict) or not props:
            self.add("free_form_object", path, "objects need declared properties")
            return
        listed = node.get("required")
        required: list[Any] = listed if isinstance(listed, list) else []
        for prop in props:
            if prop not in required:
                self.add(
                    "missing_required",
                    f"{path}/properties/{prop}",
                    f"{prop!r} is not in required (use a nullable type for optional)",
                )
        for prop in required:
            if prop not in props:
                self.add("unknown_required", f"{path}/required", f"{prop!r} is required but not a property")
        for prop, sub in props.items():
            self.properties += 1
            self.text += len(prop)
            self.visit(sub, f"{path}/properties/{prop}", depth + 1)

    def _enum(self, node: dict[str, Any], path: str) -> None:
        listed = node.get("enum")
        values: list[Any] = listed if isinstance(listed, list) else []
        self.enum_values += len(values)
        self.text += sum(len(v) for v in values if isinstance(v, str))
        if isinstance(node.get("const"), str):
            self.text += len(node["const"])

    def _ref(self, node: dict[str, Any], path: str) -> None:
        ref = node["$ref"]
        if len(node) > 1:
            self.add("bad_ref", path, "$ref must not have sibling keywords")
        target: Any = self.root
        if not isinstance(ref, str) or not ref.startswith("#"):
            self.add("bad_ref", path, f"$ref {ref!r} must point inside the schema")
            return
        for part in [p for p in ref[1:].split("/") if p]:
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            self.add("bad_ref", path, f"$ref {ref!r} does not resolve")

    def totals(self) -> None:
        defs = {**(self.root.get("$defs") or {}), **(self.root.get("definitions") or {})}
        self.text += sum(len(name) for name in defs)
        if self.properties > MAX_PROPERTIES:
            self.add("too_many_properties", "", f"{self.properties} properties; the limit is {MAX_PROPERTIES}")
        if self.enum_values > MAX_ENUM_VALUES:
            self.add("too_many_enum_values", "", f"{self.enum_values} enum values; the limit is {MAX_ENUM_VALUES}")
        if self.text > MAX_TEXT:
            self.add("too_much_text", "", f"{self.text} characters of names and values; the limit is {MAX_TEXT}")
