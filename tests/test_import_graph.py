"""The house's import rules, checked from the source with `ast` (no third-party tool).

Every `import` and `from ... import` of Atlas's own packages is an edge: module level, inside a function
and under `if TYPE_CHECKING:` alike. A function-local import is the usual way a circle gets hidden (it
defers the failure from import time to the first call), and a type-only import still says "this module
knows about that one", so both count. Lazy imports made for start-up cost stay possible; they just have
to point downward like any other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("atlas", "bot", "datasets", "tools", "workers")

# The layers, lowest first. A module may import its own layer and the layers below; never above.
# The first matching rule names a module's layer (see `matches` for the prefixes).
FLOOR, DATA, CORE, FRONT, WIRING, COMMANDS = range(6)
LAYER_NAMES = ("floor", "data", "core", "front end", "wiring", "commands")
LAYERS: list[tuple[int, tuple[str, ...]]] = [
    # The commands: what `atlas ...` runs. Only commands import commands.
    (COMMANDS, ("atlas.cli", "atlas.ask", "atlas.show_run", "atlas.serve_worker", "atlas.sync_command",
                "atlas.tool_eval", "atlas.triage_command")),
    # Wiring: each process's composition root and the RQ job entry points, which fetch what the root built.
    # atlas/failures.py explains a start-up failure in one line, for the roots and the commands.
    (WIRING, ("workers.runtime", "workers.platforms", "workers.runs.jobs", "workers.approvals.expiry", "workers.github_jobs",
              "workers.runs.worker", "bot.serve", "bot.slack.app", "bot.discord.endpoint", "atlas.failures")),
    # Front ends: chat platforms, inbound (bot/, bot/discord/) and outbound (a run's Slack thread in
    # bot/slack/, its Discord thread in bot/discord/). atlas/slack_client.py builds the Slack WebClient:
    # a front-end part that still sits in atlas/.
    (FRONT, ("bot.", "atlas.slack_client")),
    # The domain core: the agent (loop, budgets, context window, model adapters, offline model), approvals,
    # runs and their queue. It knows the chat platforms only through the port (workers/chat.py).
    (CORE, ("workers.",)),
    # The data the tools read and the tools themselves.
    (DATA, ("datasets.", "tools.")),
    # The floor: settings, Redis, tokens, the API clients.
    (FLOOR, ("atlas.",)),
]
# Third-party front-end libraries the core (and what is below it) must never import.
FRONT_END_LIBRARIES = ("slack_bolt", "slack_sdk", "hikari", "nacl")


def matches(module: str, prefix: str) -> bool:
    """"bot." matches bot and everything in it; "workers.slack_" every module so named; else one module (and its own)."""
    if prefix.endswith("."):
        return module == prefix[:-1] or module.startswith(prefix)
    if prefix.endswith("_"):
        return module.startswith(prefix)
    return module == prefix or module.startswith(prefix + ".")


def layer(module: str) -> int:
    for level, prefixes in LAYERS:
        if any(matches(module, prefix) for prefix in prefixes):
            return level
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imported(module: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """(name, line) of every import in the file, resolved to a known module where it is one."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        for name in names:
            yield name, node.lineno


def edges() -> dict[str, dict[str, int]]:
    """module -> {imported Atlas module or third-party top-level name: first line}."""
    found = modules()
    known = set(found)
    graph: dict[str, dict[str, int]] = {}
    for module, path in found.items():
        out: dict[str, int] = {}
        for name, line in imported(module, path, known):
            target = name
            while target and target not in known:
                target = target.rpartition(".")[0]
            key = target or name.split(".")[0]
            if key != module:
                out.setdefault(key, line)
        graph[module] = out
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, dict[str, int]]:
    return edges()


def test_the_checks_see_a_circle_and_an_upward_import() -> None:
    """The checker itself can fail: a planted circle and a planted upward edge are found."""
    planted = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert circles(planted) == [["a", "b", "c"]]
    assert layer("atlas.settings") == FLOOR and layer("workers.approvals.gate") == CORE and layer("bot.slack.mentions") == FRONT
    assert layer("bot.slack.surface") == FRONT and layer("workers.runtime") == WIRING and layer("atlas.cli") == COMMANDS


def test_every_module_is_in_a_layer(graph: dict[str, dict[str, int]]) -> None:
    for module in graph:
        layer(module)


def test_no_import_circle(graph: dict[str, dict[str, int]]) -> None:
    assert circles(graph) == []


def test_no_module_imports_a_layer_above_its_own(graph: dict[str, dict[str, int]]) -> None:
    upward = [
        f"{module} ({LAYER_NAMES[layer(module)]}) imports {target} ({LAYER_NAMES[layer(target)]}), line {line}"
        for module, targets in graph.items()
        for target, line in targets.items()
        if target in graph and layer(target) > layer(module)
    ]
    assert upward == []


def test_the_core_and_below_import_no_chat_platform_library(graph: dict[str, dict[str, int]]) -> None:
    found = [
        f"{module} imports {target}, line {line}"
        for module, targets in graph.items()
        if layer(module) <= CORE
        for target, line in targets.items()
        if target.split(".")[0] in FRONT_END_LIBRARIES
    ]
    assert found == []
