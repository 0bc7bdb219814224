"""A warm `atlas ask` (its background worker already up) is one short process: parse, queue, wait, print. What it
imports is most of its wall time (issue 40: the bench holds it to twice `python -c 'import redis, rq'`), so the
worker's parts stay out of it: the tools package (the tokenizer, the stemmers, SQLite), the model client, numpy,
pydantic (the run's model: a warm ask reads and writes its record as JSON).

A real `atlas ask` in a fresh interpreter, because the test process has long since imported everything.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Worker

from tests.support.paths import REPO
from tests.support.processes import atlas_command
from tests.support.tools_dataset import make_dataset

QUESTION = "What does ORB-1202 mean?"
NOT_IN_A_WARM_ASK = (
    "tools",
    "tiktoken",
    "snowballstemmer",
    "sqlite3",
    "numpy",
    "openai",
    "pydantic",  # the record is read and written as JSON (workers/runs/record_json.py)
    "workers.agent.loop",
)

# `atlas ask` as `python -m atlas.cli.main ask` runs it, then the modules it loaded, on stderr's last line.
PROBE = """
import json, runpy, sys
sys.argv = ["atlas", "ask", sys.argv[1]]
try:
    runpy.run_module("atlas.cli.main", run_name="__main__")
except SystemExit as done:
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
    raise
"""


@pytest.fixture
def background_workers(redis_conn: redis.Redis) -> Iterator[None]:
    """Kill the background worker the first `atlas ask` starts (it would idle for 10 minutes)."""
    yield
    for worker in Worker.all(connection=redis_conn):
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_warm_ask_imports_none_of_the_workers_parts(
    tmp_path: Path, atlas_env: dict[str, str], background_workers: None
) -> None:
    env = {**atlas_env, "ATLAS_DATA": str(make_dataset(tmp_path / "orbit"))}
    cold = atlas_command("ask", QUESTION, env=env, timeout=90)  # starts the background worker
    assert cold.returncode == 0, cold.stderr[-2000:]
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH")}
    warm = subprocess.run(
        [sys.executable, "-c", PROBE, QUESTION],
        env={**base, **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert warm.returncode == 0, warm.stderr[-2000:]
    assert "started a background worker" not in warm.stderr  # the warm path: the worker served it
    assert "ORB-1202" in warm.stdout and "answered by model offline" in warm.stdout
    loaded = set(json.loads(warm.stderr.strip().splitlines()[-1]))
    assert {"atlas.cli.ask", "workers.runs.queueing", "bot.plain.views.answer"} <= loaded  # it did ask and print
    heavy = sorted(m for m in loaded if m.split(".")[0] in NOT_IN_A_WARM_ASK or m in NOT_IN_A_WARM_ASK)
    assert not heavy, f"a warm `atlas ask` imports {heavy}"
