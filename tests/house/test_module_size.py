"""No Python module is over 300 lines (one concept per module; ruff's E501 keeps a module from packing lines to fit).

OVER_NOW is the debt still owed (#37): it may only shrink. A module split below the limit leaves it, and an entry
that is no longer over fails the test, so the list stays true.
"""

from __future__ import annotations

import subprocess

from tests.support.paths import REPO

LIMIT = 300
# The embedded dataset's texts written as Python (issue bodies, comments, log excerpts): data, not concepts; a
# topic's issues stay in one file, however long.
DATA = "datasets/orbit_material/"
# Modules still over the limit: none since the trackers and the GitHub sync were split (#37, #38). A module that
# grows over it must be split by concept, not listed here.
OVER_NOW: set[str] = set()


def lengths() -> dict[str, int]:
    """Lines of every Python module git tracks (what a newcomer reads), by path."""
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True, check=True)
    paths = [p for p in listed.stdout.split() if (REPO / p).is_file()]
    return {p: len((REPO / p).read_text(encoding="utf-8").splitlines()) for p in paths}


def over(sizes: dict[str, int]) -> set[str]:
    """Modules over the limit that are not the embedded dataset's texts."""
    return {path for path, n in sizes.items() if n > LIMIT and not path.startswith(DATA)}


def test_the_check_sees_a_long_module_and_lets_the_data_be() -> None:
    sizes = {"bot/a.py": LIMIT, "bot/b.py": LIMIT + 1, DATA + "long.py": 5 * LIMIT}
    assert over(sizes) == {"bot/b.py"}


def test_no_module_is_over_300_lines() -> None:
    sizes = lengths()
    assert len(sizes) > 100, "git listed too few modules: is this a checkout?"
    grown = {path: sizes[path] for path in over(sizes) - OVER_NOW}
    assert not grown, f"over {LIMIT} lines (split by concept, not by packing lines): {grown}"


def test_the_list_of_modules_still_over_is_true() -> None:
    sizes = lengths()
    assert {path for path in OVER_NOW if sizes.get(path, 0) <= LIMIT} == set(), "split: remove it from OVER_NOW"
