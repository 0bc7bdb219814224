"""The web process (`atlas serve`) acks and enqueues; it never runs the agent, so it must not load the
agent loop or the model client (`openai`): they cost start-up time and memory in every web process,
and an import of the loop from `bot/` is how the core's weight leaks into the front end (#23).

A fresh interpreter, because the test process has long since imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.paths import REPO

# What `atlas serve` imports: the command, the process, and what it imports lazily when configured
# (Discord's endpoint, GitHub's webhook, the Redis it enqueues on, the Slack app and its lookups).
WEB_MODULES = (
    "atlas.cli.main",
    "bot.web.serve",
    "bot.slack.app",
    "bot.discord.endpoint",
    "bot.github.webhook",
    "bot.slack.deps",
    "bot.fast_redis",
    "bot.lookups",
    "bot.console.app",
    "bot.console.pages",
    "bot.console.gaps_page",
    "bot.console.health_page",
    "bot.console.usage_page",
    "bot.console.approvals_page",
    "tools",
)
NOT_IN_THE_WEB_PROCESS = ("openai", "workers.agent.loop", "workers.agent.model")

PROBE = """
import importlib, json, sys
for name in sys.argv[1].split(","):
    importlib.import_module(name)
print(json.dumps(sorted(sys.modules)))
"""


def test_the_web_process_imports_no_model_client_and_no_agent_loop() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(WEB_MODULES)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert set(WEB_MODULES) <= loaded  # the probe reported what it imported, not an empty list by mistake
    assert not (loaded & set(NOT_IN_THE_WEB_PROCESS)), (
        f"the web process loads {sorted(loaded & set(NOT_IN_THE_WEB_PROCESS))}"
    )
    assert not any(m.startswith("openai.") for m in loaded), sorted(m for m in loaded if m.startswith("openai."))
