"""Run the benchmark suites: `python -m bench [suite ...]`.

Each suite is a module `bench/<name>.py` with `run() -> list[Table]`.
"""

from __future__ import annotations

import importlib
import sys

from bench.report import write

SUITES = [
    "org",  # first: it reports this process's RSS, which any suite run before it in the process inflates
    "tools_tokens",
    "search_quality",
    "embedders",
    "search_scale",
    "context",
    "overhead",
    "hot_paths",
    "slack",
    "discord",
    "approvals",
    "outages",
    "github",
    "code_sync",
    "answer_watch",
    "triage",
    "triage_model",
    "concurrency",
    "redis_keys",
    "console",
    "chaos",
    "worker_memory",
]


def main(argv: list[str]) -> int:
    wanted = argv or SUITES
    for name in wanted:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"bench.{name}":
                print(f"== {name}: not built yet\n")
                continue
            raise
        tables = module.run()
        for table in tables:
            print(table.render() + "\n")
        print(f"(written to {write(name, tables)})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
