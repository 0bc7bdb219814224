"""`atlas worker` does at start what its first run would otherwise wait on (workers/process/warmup.py, issue 40): the
run job's module imported as RQ would import it, a date read as RQ reads a job's, the model client's request headers
built (the SDK runs `uname -p` for them), and still no tokenizer: a worker builds it only for a text too long to fit
by its bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO

# A fresh interpreter: the test process has imported the job modules and built the SDK's headers long ago.
PROBE = """
import json, sys
from openai._base_client import platform_headers  # the SDK's per-process cache of what every request carries
from atlas import tokens
from atlas.cli.worker import serve
from atlas.settings import Settings

def state():
    return {
        "job module": "workers.jobs.runs" in sys.modules,
        "dates": "_strptime" in sys.modules,
        "headers": platform_headers.cache_info().currsize,
    }

before = state()
code = serve(Settings.from_env(), burst=True)  # the worker's start, then an empty queue: it exits at once
print(json.dumps({"code": code, "before": before, "after": state(), "tokenizer": tokens.encoding.cache_info()[3]}))
"""


def test_a_worker_start_warms_its_first_run_without_the_tokenizer(atlas_env: dict[str, str], tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", **atlas_env, "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # none of it is done by importing the command: the worker's start does it
    assert seen["before"] == {"job module": False, "dates": False, "headers": 0}
    assert seen == {**seen, "code": 0, "after": {"job module": True, "dates": True, "headers": 1}, "tokenizer": 0}
