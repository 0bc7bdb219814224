"""Validate Responses API payloads against OpenAI's published OpenAPI description.

The stand-in model checks every request it receives and every reply it sends here, so the
tests cannot drift from the real protocol. The spec lives beside the clone (`../shared/specs/`,
located relative to this repository); `ATLAS_OPENAI_SPEC` overrides the path, and a file named
there but missing is an error. A plain clone with no `../shared` checks the same payloads against
the types the openai SDK ships instead (`tests/standins/openai_types.py`); the few tests about the
spec itself skip, saying why. OpenAI's description is never copied into this repository.

Spec quirk handled here (see `_tolerated_overlaps`): `InputItem` is a `oneOf` whose branches `EasyInputMessage` and
`Item` (-> `InputMessage`) both describe a user/system/developer message with a content-part list, e.g. `{"role":
"user", "content": [{"type": "input_text", "text": "hi"}]}`. The SDK's `ResponseInputItemParam` lists both shapes
(`EasyInputMessageParam` and `Message`) as valid input, but plain JSON Schema `oneOf` rejects it as "valid under each
of". OpenAPI's `discriminator` does not disambiguate (both branches carry `type: "message"`, and there is no mapping).
Only that one `oneOf`, and only when the matching branches are exactly those two, is treated as "at least one"; every
other `oneOf` keeps exact-one semantics.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_ENV = "ATLAS_OPENAI_SPEC"
SPEC_URI = "urn:openai-spec"
_REPO = Path(__file__).resolve().parents[2]
_STANDARD_ONE_OF = Draft202012Validator.VALIDATORS["oneOf"]


class SpecMissing(FileNotFoundError):
    """The OpenAPI file is absent: validation cannot run, so nothing may pretend it did."""


class SpecChanged(RuntimeError):
    """A quirk we work around is gone or moved: re-check it against the new spec."""


@dataclass(frozen=True)
class Problem:
    """One way a payload breaks the spec: where (`input[2].content`), what, and which keyword."""

    path: str
    message: str
    keyword: str

    def __str__(self) -> str:
        return f"{self.path or '<root>'}: {self.message}"


def spec_path() -> Path:
    """`$ATLAS_OPENAI_SPEC`, else `<repo>/../shared/specs/openai-openapi.json`."""
    override = os.environ.get(SPEC_ENV)
    return Path(override) if override else _REPO.parent / "shared" / "specs" / "openai-openapi.json"


def spec_available() -> bool:
    """Whether payloads are checked against the spec; False means the SDK's types stand in for it.

    A path named by `ATLAS_OPENAI_SPEC` counts as available (so a wrong one fails loudly)."""
    return bool(os.environ.get(SPEC_ENV)) or spec_path().is_file()


SPEC_ABSENT = "OpenAI's spec is not beside the clone (../shared/specs/openai-openapi.json); this checks the spec itself"


@dataclass(frozen=True)
class _Compiled:
    spec: dict[str, Any]
    validator_class: type[Any]
    registry: Registry[Any]


def _tolerated_overlaps(spec: dict[str, Any]) -> dict[int, frozenset[int]]:
    """Map id(oneOf list) -> branch indices that may match together (the quirk above)."""
    schemas = spec["components"]["schemas"]
    branches = schemas.get("InputItem", {}).get("oneOf")
    refs = [b.get("$ref") for b in branches] if isinstance(branches, list) else []
    wanted = ("#/components/schemas/EasyInputMessage", "#/components/schemas/Item")
    if branches is None or any(ref not in refs for ref in wanted):
        raise SpecChanged(
            "InputItem no longer has both EasyInputMessage and Item branches; "
            "re-check the overlap workaround in tests/standins/openai_spec.py"
        )
    return {id(branches): frozenset(refs.index(ref) for ref in wanted)}


def _validator_class(tolerated: dict[int, frozenset[int]]) -> type[Any]:
    """Draft 2020-12, except the listed `oneOf`s accept a match of their overlapping branches."""

    def one_of(validator: Any, one_of: list[Any], instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        errors = list(_STANDARD_ONE_OF(validator, one_of, instance, schema))
        group = tolerated.get(id(one_of))
        if errors and group is not None:
            matched = {i for i, sub in enumerate(one_of) if validator.evolve(schema=sub).is_valid(instance)}
            if len(matched) > 1 and matched <= group:
                return
        yield from errors

    return validators.extend(Draft202012Validator, {"oneOf": one_of})


@functools.cache
def _compile(path: str) -> _Compiled:
    """Parse the 3.4 MB file once per process and path."""
    file = Path(path)
    if not file.is_file():
        raise SpecMissing(
            f"OpenAI OpenAPI spec not found at {file}. Put shared/specs/openai-openapi.json beside "
            f"the repository or point {SPEC_ENV} at a copy; request/reply validation cannot be skipped."
        )
    spec = json.loads(file.read_text(encoding="utf-8"))
    resource = Resource.from_contents(spec, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)
    return _Compiled(spec, _validator_class(_tolerated_overlaps(spec)), registry)


def load() -> dict[str, Any] | None:
    """The parsed spec (cached); None when it is absent and the SDK's types stand in for it."""
    if not spec_available():
        return None
    return _compile(str(spec_path())).spec


@functools.cache
def _validator(path: str, schema_name: str) -> Any:
    compiled = _compile(path)
    if schema_name not in compiled.spec["components"]["schemas"]:
        raise KeyError(f"{schema_name} is not a schema in {path}")
    ref = {"$ref": f"{SPEC_URI}#/components/schemas/{schema_name}"}
    return compiled.validator_class(ref, registry=compiled.registry)


def json_path(parts: Any) -> str:
    """Render a jsonschema path deque like the API's `param`: `input[2].content`."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shorten(message: str, limit: int = 300) -> str:
    message = re.sub(r"\s+", " ", message)
    return message if len(message) <= limit else message[: limit - 3] + "..."


def _off_branch(sub: ValidationError, parent: ValidationError) -> bool:
    """A union branch that failed on the instance's kind or its `type` tag was never the intended one."""
    rest = list(sub.absolute_path)[len(parent.absolute_path) :]
    return (sub.validator == "type" and not rest) or rest == ["type"]


def _leaves(error: ValidationError) -> list[ValidationError]:
    """Descend `oneOf`/`anyOf` failures into the branches whose tag matched, where the real fault is."""
    if not error.context:
        return [error]
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    kept = [subs for subs in branches.values() if not any(_off_branch(s, error) for s in subs)]
    if not kept:
        return [error]
    return [leaf for subs in kept for sub in subs for leaf in _leaves(sub)]


def problems(schema_name: str, instance: Any) -> list[Problem]:
    """Every top-level violation of `components.schemas[schema_name]`, each at its most telling depth."""
    if not spec_available():
        from tests.standins import openai_types

        return openai_types.problems(schema_name, instance)
    found = []
    for error in _validator(str(spec_path()), schema_name).iter_errors(instance):
        leaves = _leaves(error)
        depth = max(len(leaf.absolute_path) for leaf in leaves)
        deepest = [leaf for leaf in leaves if len(leaf.absolute_path) == depth]
        specific = [leaf for leaf in deepest if leaf.validator not in ("oneOf", "anyOf")]
        deepest = specific or deepest
        for leaf in deepest[:3]:
            problem = Problem(json_path(leaf.absolute_path), _shorten(leaf.message), str(leaf.validator))
            if problem not in found:
                found.append(problem)
    return sorted(found, key=lambda p: p.path)


def request_problems(body: Any) -> list[Problem]:
    """`problems("CreateResponse", body)`, but each input item is checked once per process.

    With `store: false` every turn resends the whole history, and a long input costs about a
    millisecond an item; caching by item keeps benchmarks from timing the validator. Equivalent
    because `input` is constrained only by `InputParam` (a string or an array of `InputItem`).
    """
    if not spec_available():
        from tests.standins import openai_types

        return openai_types.request_problems(body)
    items = body.get("input") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return problems("CreateResponse", body)
    found = problems("CreateResponse", {**body, "input": []})
    for index, item in enumerate(items):
        for problem in _item_problems(str(spec_path()), json.dumps(item, sort_keys=True)):
            inner = problem.path if not problem.path or problem.path.startswith("[") else "." + problem.path
            found.append(Problem(f"input[{index}]{inner}", problem.message, problem.keyword))
    return found


@functools.lru_cache(maxsize=8192)
def _item_problems(path: str, item_json: str) -> tuple[Problem, ...]:
    return tuple(problems("InputItem", json.loads(item_json)))


def object_properties(schema_name: str) -> frozenset[str]:
    """Property names a schema allows at its top level, following `$ref` and `allOf`."""
    if not spec_available():
        from tests.standins import openai_types

        if schema_name != "CreateResponse":
            raise KeyError(f"{schema_name}: only CreateResponse's properties are known without the spec")
        return openai_types.create_response_properties()
    return _properties(str(spec_path()), schema_name)


@functools.cache
def _properties(path: str, schema_name: str) -> frozenset[str]:
    schemas = _compile(path).spec["components"]["schemas"]

    def walk(node: dict[str, Any]) -> Iterator[str]:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield from walk(schemas[ref.rsplit("/", 1)[1]])
        yield from node.get("properties", {})
        for part in node.get("allOf", []):
            yield from walk(part)

    return frozenset(walk(schemas[schema_name]))
