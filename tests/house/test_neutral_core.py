"""The core does not know which chat it talks to: the model's tool descriptions, the texts the tools and the
core hand back, and the run's RQ job name no platform. A run asked on Discord must not be told its approvals
happen "in Slack"; only a platform module says which one it is.

A core string may still name the run's own platform when it picks the name from the run's platform value
(`{"slack": "a Slack thread", "discord": "a Discord thread"}[platform]`): that is a lookup, not a claim.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from tests.house.test_import_graph import CORE, TOOLS, layer, modules
from tests.support.paths import REPO
from tools import v1_registry, v2_registry
from tools.catalog import read_registry
from tools.hand_off import with_hand_off
from tools.registry import Registry

PLATFORM_WORD = re.compile(r"\b(Slack|Discord)\b")  # a platform named in prose ("in Slack", "a Discord thread")
PLATFORM_VALUES = frozenset({"slack", "discord"})  # a run's platform value (`Origin.kind`)
RUN_JOB = REPO / "workers" / "jobs" / "runs.py"  # the RQ job every question's run is


def _docstrings(tree: ast.AST) -> set[int]:
    bodies = (
        n.body
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    )
    return {
        id(body[0].value)
        for body in bodies
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    }


def _looked_up(tree: ast.AST) -> set[int]:
    """Values of a dict keyed by platform values: the name of the run's own platform, picked by its value."""
    return {
        id(v)
        for n in ast.walk(tree)
        if isinstance(n, ast.Dict) and {k.value for k in n.keys if isinstance(k, ast.Constant)} & PLATFORM_VALUES
        for v in n.values
    }


def platform_strings(source: str, name: str = "<planted>") -> list[str]:
    """Every string of a module (docstrings aside: they speak to the reader) that names a platform, with its line."""
    tree = ast.parse(source)
    skip = _docstrings(tree) | _looked_up(tree)
    return [
        f"{name}:{n.lineno} {n.value!r}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in skip
        and PLATFORM_WORD.search(n.value)
    ]


def registries() -> dict[str, Registry]:
    return {
        "v2": v2_registry(),
        "v2 without knowledge": v2_registry(knowledge=False),
        "read (MCP)": read_registry(),
        "help channels": with_hand_off(read_registry()),
        "v1": v1_registry(),
    }


def test_the_checks_see_a_platform_named() -> None:
    planted = (
        '"""Posts to Slack."""\nHINT = "approve it in Slack"\nWHERE = {"slack": "a Slack thread"}\nKIND = "discord"\n'
    )
    assert platform_strings(planted) == ["<planted>:2 'approve it in Slack'"]
    assert PLATFORM_WORD.search(json.dumps({"description": "a maintainer approves it in Discord"}))
    assert re.search(r"slack|discord", "from bot.slack.x import y", re.I)


def test_no_tool_description_names_a_platform() -> None:
    found = [
        f"{label}: {d['name']}"
        for label, registry in registries().items()
        for d in registry.definitions()
        if PLATFORM_WORD.search(json.dumps(d))
    ]
    assert found == []


def test_no_core_or_tools_module_says_a_platform() -> None:
    found = [
        hit
        for module, path in modules().items()
        if layer(module) in (CORE, TOOLS)
        for hit in platform_strings(path.read_text(), module)
    ]
    assert found == []


def test_the_run_job_names_no_platform() -> None:
    """Which platform a run reports on, and what that platform adds, is the wiring's (workers/process/platforms.py)."""
    lines = [
        f"{n}: {line.strip()}"
        for n, line in enumerate(Path(RUN_JOB).read_text().splitlines(), 1)
        if re.search(r"slack|discord", line, re.I)
    ]
    assert lines == []
