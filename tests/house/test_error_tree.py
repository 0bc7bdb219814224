"""One exception tree (#23): every error Atlas defines descends from `atlas.errors.AtlasError`, so a
reader finds them all from one root and an edge can tell Atlas's own failures from a library's.

Checked from the source with `ast` (like tests/house/test_import_graph.py): a class whose bases are only
builtin exceptions is a new root. Private classes (a signal caught in the module that raises it) are
exempt. The builtin base an error keeps (ValueError, RuntimeError, ...) is pinned by the edges' tests.
"""

from __future__ import annotations

import ast
import builtins

from atlas.errors import AtlasError, ConfigError
from bot.discord.rest import DiscordError
from datasets.tracker_db import DatasetError
from tests.support.paths import REPO
from tools.errors import TrackerError, TrackerUnavailable
from workers.errors import DeliveryLost, ModelUnavailable, RunNotFound

ROOT = REPO
PACKAGES = ("atlas", "bot", "datasets", "tools", "workers")
BUILTIN_EXCEPTIONS = {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
}


def _roots() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_relative_to(ROOT / "datasets" / "orbit"):  # the demo project's own source tree is data
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef) or node.name.startswith("_") or node.name == "AtlasError":
                    continue
                bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
                if bases and len(bases) == len(node.bases) and all(b in BUILTIN_EXCEPTIONS for b in bases):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({', '.join(bases)})")
    return found


def test_every_error_atlas_defines_descends_from_atlas_error() -> None:
    assert _roots() == []


def test_the_tree_spans_every_package_and_keeps_the_builtin_bases() -> None:
    for error in (
        ConfigError,
        DatasetError,
        TrackerError,
        TrackerUnavailable,
        ModelUnavailable,
        RunNotFound,
        DeliveryLost,
        DiscordError,
    ):
        assert issubclass(error, AtlasError), error
    assert issubclass(ConfigError, ValueError) and issubclass(DatasetError, RuntimeError)
    assert issubclass(RunNotFound, LookupError)
