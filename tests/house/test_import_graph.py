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

from tests.support.paths import REPO

ROOT = REPO
PACKAGES = ("atlas", "bot", "datasets", "tools", "workers")

# The layers, lowest first, each a set of folder prefixes. A module may import its own layer and the layers
# below; never above. The first matching prefix names a module's layer, so `atlas.cli.` (the commands) is
# found before `atlas.` (the floor), and `bot.web.` (the web process) before `bot.` (the chat platforms).
FLOOR, DATA, TOOLS, CORE, PLATFORMS, PROCESSES, COMMANDS = range(7)
LAYER_NAMES = ("floor", "data", "tools", "core", "chat platforms", "processes", "commands")
LAYERS: list[tuple[int, tuple[str, ...]]] = [
    (COMMANDS, ("atlas.cli.",)),  # what `atlas ...` runs; nothing imports a command
    (PROCESSES, ("bot.web.", "workers.process.", "workers.jobs.")),  # the web process, the worker process, its RQ jobs
    (PLATFORMS, ("bot.",)),  # Slack, Discord, GitHub inbound, MCP: inbound and outbound
    (CORE, ("workers.",)),  # the agent, approvals, runs, triage: the chat platforms only through workers/chat.py
    (TOOLS, ("tools.",)),  # the model's tools, the docs search engine, the trackers
    (DATA, ("datasets.",)),  # the data the tools read: the demo, the GitHub sync, the derived indexes
    (FLOOR, ("atlas.",)),  # settings, Redis, tokens, API clients, errors
]
# Third-party front-end libraries the core (and what is below it) must never import.
FRONT_END_LIBRARIES = ("slack_bolt", "slack_sdk", "hikari", "nacl")


def matches(module: str, prefix: str) -> bool:
    """ "bot." matches the package bot and everything in it: every rule is a folder, never one module."""
    return module == prefix[:-1] or module.startswith(prefix)


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
    assert (
        layer("atlas.settings") == FLOOR
        and layer("workers.approvals.gate") == CORE
        and layer("bot.slack.mentions") == PLATFORMS
    )
    assert (
        layer("bot.web.serve") == PROCESSES
        and layer("workers.process.runtime") == PROCESSES
        and layer("atlas.cli.main") == COMMANDS
    )
    assert (
        layer("tools.docsearch.index") == TOOLS
        and layer("datasets.github.sync") == DATA
        and layer("workers.jobs.runs") == PROCESSES
    )


def test_every_layer_is_a_list_of_folders_with_no_exception() -> None:
    """The layers are read from folder names alone: each rule is a package that exists, never a single module."""
    for _, prefixes in LAYERS:
        for prefix in prefixes:
            assert prefix.endswith("."), prefix
            assert (ROOT / prefix[:-1].replace(".", "/") / "__init__.py").is_file(), prefix


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
