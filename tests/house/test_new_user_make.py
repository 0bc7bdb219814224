"""The Makefile a fresh clone starts from (issue 22 item 31), read with `make -n -B` (nothing is installed):
`make ask` installs only what running needs, quietly, and says once how to run `atlas` itself."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.processes import REPO

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _plan(target: str) -> list[str]:
    """The commands `make TARGET` would run on a fresh clone (-B: as if nothing were installed yet)."""
    done = subprocess.run(["make", "-n", "-B", target], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _installs(plan: list[str]) -> list[str]:
    return [line for line in plan if "pip install" in line and "--upgrade pip" not in line]


def test_make_ask_installs_only_what_running_needs_without_the_editable_notice() -> None:
    plan = _plan("ask")
    installs = _installs(plan)
    assert installs and not [line for line in installs if "[dev]" in line or "honcho" in line or "[run]" in line], (
        installs
    )
    editable = [line for line in installs if " -e " in line]
    assert editable and all('PYTHONWARNINGS="ignore:Editable installation"' in line for line in editable), editable


def test_make_ask_says_how_to_run_atlas_directly() -> None:
    plan = _plan("ask")
    [hint] = [line for line in plan if line.startswith("echo ")]
    assert ".venv/bin/atlas" in hint and ".venv/bin/activate" in hint
    assert plan.index(hint) < plan.index('.venv/bin/atlas ask ""')  # said as the install ends, before the answer


def test_the_dev_tools_come_with_make_test_and_honcho_with_make_run() -> None:
    assert any("'.[dev]'" in line for line in _installs(_plan("test")))
    run = _installs(_plan("run"))
    assert any("'.[run]'" in line for line in run) and not any("[dev]" in line for line in run)
