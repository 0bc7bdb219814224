"""Every tool's strict definition is exactly what the openai SDK makes of its arguments model (issue 40): the
registry writes pydantic's schema of models that are strict by construction, so a worker need not import the SDK.
A tool whose model is not strict as written (a default, a free-form dict) fails here, since the SDK rewrites it.
And an offline worker's runtime, built as `atlas worker` builds it, loads no SDK at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from atlas.project_settings import Project
from tests.support.paths import REPO
from tools import v1_registry, v2_registry
from tools.hand_off import with_hand_off
from tools.registry import Registry
from tools.undo_tools import undo_registry

REGISTRIES = {
    "v2": v2_registry(),
    "v2 without knowledge": v2_registry(knowledge=False),
    "v2 of another project": v2_registry(Project("Comet", "a job queue")),
    "help channels": with_hand_off(v2_registry()),
    "undo": undo_registry(v2_registry()),
    "v1": v1_registry(),
}


@pytest.mark.parametrize("name", REGISTRIES)
def test_every_definition_is_what_the_sdk_makes_of_the_tool(name: str) -> None:
    registry: Registry = REGISTRIES[name]
    tools = [t for n in registry.names() if (t := registry.get(n)) is not None]
    expected = [
        dict(openai.pydantic_responses_function_tool(t.args_model, name=t.name, description=t.description))
        for t in tools
    ]
    if registry._rename is not None:  # another project's words in the descriptions, as the registry writes them
        expected = [json.loads(registry._rename(json.dumps(d))) for d in expected]
    assert tools and registry.definitions() == expected


PROBE = """
import json, sys
from atlas.settings import Settings
from workers.process import runtime
runtime.build(Settings.from_env())
print(json.dumps(sorted(m for m in sys.modules if m == "openai" or m.startswith("openai."))))
"""


def test_an_offline_worker_runtime_loads_no_model_sdk(atlas_env: dict[str, str], tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", **atlas_env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
