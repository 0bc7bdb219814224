"""Tools by name: a Pydantic arguments model, a function, and whether it has side effects.

The function's docstring is the description the model reads (its lines joined into one: the source wraps at
120 columns, the model reads one paragraph), and the strict function definition sent to the Responses API is
generated from the arguments model, never by hand: pydantic's JSON schema of a model that is strict by
construction (every field required, no extra keys), which is exactly what the openai SDK's
`pydantic_responses_function_tool` makes of it (tests/tools/test_definitions.py holds every registry to that),
without importing the SDK: an offline worker never loads it.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from tools.context import ToolContext
from tools.errors import RegistryError, ToolError

# A tool-level argument check that needs data (does the issue exist? is the label real?). Dispatch's
# `validate` runs it after the pydantic model, so an invalid side-effect call never reaches a human.
CheckFn = Callable[[Any, ToolContext], "ToolError | None"]
F = TypeVar("F", bound=Callable[..., Any])
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Tool:
    """One callable tool as the model sees it."""

    name: str
    description: str
    args_model: type[BaseModel]
    fn: Callable[[BaseModel, ToolContext], str | ToolError]
    side_effect: bool
    check: CheckFn | None = None


class Registry:
    """An ordered set of tools with unique names."""

    def __init__(self, rename: Callable[[str], str] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._definitions: list[dict[str, Any]] | None = None
        self._rename = rename  # rewrites the project-specific words of descriptions (tools/catalog.py)

    def tool(
        self, *, side_effect: bool = False, name: str | None = None, check: CheckFn | None = None
    ) -> Callable[[F], F]:
        """Decorator: register `fn(args: SomeModel, ctx: ToolContext)`; the docstring is the description."""

        def register(fn: F) -> F:
            self.add(declare(fn, side_effect=side_effect, name=name, check=check))
            return fn

        return register

    def add(self, tool: Tool) -> None:
        """Register an already built tool; a second tool with the same name is an error."""
        if tool.name in self._tools:
            raise RegistryError(f"duplicate tool name {tool.name!r}")
        self._tools[tool.name] = tool
        self._definitions = None

    def extended(self, *tools: Tool) -> Registry:
        """A new registry with these tools and `tools` after them (renamed alike)."""
        wider = Registry(self._rename)
        for tool in (*self._tools.values(), *tools):
            wider.add(tool)
        return wider

    def mapped(self, change: Callable[[Tool], Tool]) -> Registry:
        """A new registry of `change(tool)` for each tool, in order (renamed alike): tools/repo_scope.py."""
        other = Registry(self._rename)
        for tool in self._tools.values():
            other.add(change(tool))
        return other

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def definitions(self) -> list[dict[str, Any]]:
        """Strict function tools for `responses.create(tools=...)`, generated from the argument models
        once (every model call sends them; generating them costs a few ms)."""
        if self._definitions is None:
            self._definitions = [definition(t) for t in self._tools.values()]
            if self._rename is not None:
                self._definitions = [json.loads(self._rename(json.dumps(d))) for d in self._definitions]
        return [dict(d) for d in self._definitions]


def definition(tool: Tool) -> dict[str, Any]:
    """The strict function tool for `tool`, as the Responses API takes it."""
    return {
        "type": "function",
        "name": tool.name,
        "strict": True,
        "parameters": tool.args_model.model_json_schema(),
        "description": tool.description,
    }


def declare(fn: Callable[..., Any], *, side_effect: bool, name: str | None, check: CheckFn | None = None) -> Tool:
    """A Tool from `fn(args: SomeModel, ctx: ToolContext)`; its docstring, its lines joined, is the description."""
    tool_name = name or fn.__name__
    if not NAME_PATTERN.match(tool_name):
        raise RegistryError(f"tool name {tool_name!r} must match {NAME_PATTERN.pattern}")
    description = " ".join((inspect.getdoc(fn) or "").splitlines())
    if not description:
        raise RegistryError(f"tool {tool_name!r} needs a docstring: it is the description the model reads")
    params = list(inspect.signature(fn).parameters)
    if not params:
        raise RegistryError(f"tool {tool_name!r} must take (args, ctx)")
    hints = typing.get_type_hints(fn)
    args_model = hints.get(params[0])
    if not (inspect.isclass(args_model) and issubclass(args_model, BaseModel)):
        raise RegistryError(f"tool {tool_name!r}: first parameter must be annotated with a pydantic model")
    return Tool(
        name=tool_name, description=description, args_model=args_model, fn=fn, side_effect=side_effect, check=check
    )
