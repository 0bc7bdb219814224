"""Every test `tests/README.md` names as a guard of an invariant exists.

A renamed or deleted test leaves its row pointing at nothing, and the invariant then looks guarded
when it is not; four rows did so before this check.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROWS = (TESTS / "README.md").read_text()
# `bot/slack/test_app.py::test_name` and `bot/slack/test_claims.py` (a whole file)
TEST_ID = re.compile(r"`([\w/]+\.py)(?:::(\w+))?`")


@cache
def _test_names(path: Path) -> frozenset[str]:
    """The test functions a file defines, at module level or in classes."""
    tree = ast.parse(path.read_text())
    return frozenset(node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def _guards(rows: str) -> str:
    """The "guarded by" column: the last cell of each table row (the invariant's own cell may name source files)."""
    return "\n".join(line.rstrip(" |").rsplit("|", 1)[-1] for line in rows.splitlines() if line.startswith("|"))


def _missing(rows: str) -> list[str]:
    missing = []
    for file, name in TEST_ID.findall(_guards(rows)):
        path = TESTS / file
        if not path.is_file():
            missing.append(file)
        elif name and name not in _test_names(path):
            missing.append(f"{file}::{name}")
    return missing


def test_every_named_test_exists() -> None:
    assert _missing(ROWS) == []


def test_a_renamed_test_is_reported() -> None:
    row = "| in `bot/slack/surface.py` | `house/test_invariant_rows.py::test_that_was_renamed`, `house/no.py` |"
    assert _missing(row) == [
        "house/test_invariant_rows.py::test_that_was_renamed",
        "house/no.py",
    ]
