"""pyproject's mypy section skips githubkit's generated schema modules (a cold check's largest cost) but
follows the model Atlas reads, the App installation (atlas/github_client.py uses its `id`): an upgrade that
moves that model to another module would silently leave it unchecked, so this fails first."""

from __future__ import annotations

import importlib
import tomllib

from githubkit.versions import LATEST_VERSION

from tests.support.paths import REPO


def test_mypy_follows_the_schema_module_that_holds_the_model_atlas_reads() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    followed = {
        m for o in config["tool"]["mypy"]["overrides"] if o.get("follow_imports") == "normal" for m in o["module"]
    }
    package = "githubkit_schemas.v" + LATEST_VERSION.replace("-", "_") + ".models"
    installation = importlib.import_module(package).Installation
    assert {package, installation.__module__} <= followed, (
        f"follow {installation.__module__} in pyproject's mypy overrides"
    )
