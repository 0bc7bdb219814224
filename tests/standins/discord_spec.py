"""Validate what Atlas sends Discord against Discord's published OpenAPI description.

The description is read from `<repo>/../shared/specs/discord-openapi.json` (or `ATLAS_DISCORD_SPEC`)
and never copied into the project. Where it is absent, `Spec.load()` returns None and the stand-in
records that this one check did not run (`DiscordAPI.spec_checked`), so tests can say why.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_ENV = "ATLAS_DISCORD_SPEC"
SPEC_URI = "urn:discord-spec"
_REPO = Path(__file__).resolve().parents[2]
MISSING_REASON = "Discord's OpenAPI description is not beside the repository (../shared/specs/discord-openapi.json)"


def spec_path() -> Path:
    override = os.environ.get(SPEC_ENV)
    return Path(override) if override else _REPO.parent / "shared" / "specs" / "discord-openapi.json"


@dataclass(frozen=True)
class Spec:
    """Path templates matched to concrete paths, and a validator per request body schema."""

    raw: dict[str, Any]
    routes: tuple[tuple[re.Pattern[str], str, int], ...]
    registry: Registry[Any]

    @classmethod
    def load(cls) -> Spec | None:
        return _load(str(spec_path()))

    def operation(self, method: str, path: str) -> dict[str, Any] | None:
        """The spec's operation for a concrete request, the most literal template first."""
        found = self.template(path)
        return self.raw["paths"][found].get(method.lower()) if found else None

    def template(self, path: str) -> str | None:
        for pattern, template, _ in self.routes:
            if pattern.fullmatch(path):
                return template
        return None

    def problems(self, method: str, path: str, body: Any) -> list[str]:
        """Why this request would not be valid for Discord (empty when it is)."""
        op = self.operation(method, path.split("?", 1)[0])
        if op is None:
            return [f"{method} {path}: no such operation in Discord's API"]
        content = (op.get("requestBody") or {}).get("content") or {}
        schema = (content.get("application/json") or {}).get("schema")
        if schema is None:
            return [] if body is None else [f"{method} {path}: takes no JSON body"]
        pointer = "/".join(
            _escape(p)
            for p in (
                "paths",
                self.template(path.split("?", 1)[0]) or "",
                method.lower(),
                "requestBody",
                "content",
                "application/json",
                "schema",
            )
        )
        validator = Draft202012Validator({"$ref": f"{SPEC_URI}#/{pointer}"}, registry=self.registry)
        return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(body)]


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


@functools.cache
def _load(path: str) -> Spec | None:
    if not Path(path).exists():
        return None
    raw = json.loads(Path(path).read_text())
    resource = Resource(contents=raw, specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)
    routes = []
    for template in raw["paths"]:
        pattern = re.compile(re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)))
        routes.append((pattern, template, template.count("{")))
    routes.sort(key=lambda r: r[2])
    return Spec(raw, tuple(routes), registry)
