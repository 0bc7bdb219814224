"""`python -m atlas.cli` and the `atlas` script start the same command after the commands became a package."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.support.paths import REPO


def test_python_dash_m_atlas_cli_is_the_atlas_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "atlas.cli", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "usage: atlas" in done.stdout and "worker" in done.stdout


def test_the_console_script_points_at_the_commands_package() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, function = scripts["atlas"].partition(":")
    assert module.startswith("atlas.cli.")
    assert callable(getattr(__import__(module, fromlist=[function]), function))
