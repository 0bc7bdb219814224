"""A GitHub tracker over the stand-in for the write tests, and the side-effect tools driven through it."""

from __future__ import annotations

import json
from pathlib import Path

from atlas import github_client
from atlas.settings import Settings
from datasets.github.sync import sync
from datasets.sync_progress import Silent
from tests.standins.github_api import GitHubAPI
from tests.support.github_harness import settings_for
from tools import execute, open_corpus, v2_registry, validate
from tools.context import ToolContext
from tools.dispatch import ToolOutput
from tools.github.pacing import WritePacer
from tools.github.tracker import GitHubTracker


def tracker_for(
    api: GitHubAPI, tmp_path: Path, sleeps: list[float] | None = None, **env: str
) -> tuple[GitHubTracker, Settings]:
    """A synced folder (its export, which search reads, without the search index: fast) and a tracker on it;
    every wait is recorded in `sleeps` instead of slept."""
    settings = settings_for(api, tmp_path, **env)
    gh = settings.github
    assert gh is not None
    sync(github_client.client(gh), gh, settings.data_dir, progress=Silent(), sleep=lambda s: None, build_index=False)
    record = sleeps.append if sleeps is not None else (lambda s: None)
    tracker = GitHubTracker(
        gh,
        lambda: github_client.client(gh),
        settings.data_dir,
        WritePacer(None, gh.repo, sleep=record),
        sleep=record,
        build_index=False,
    )
    return tracker, settings


def call_tool(
    tracker: GitHubTracker, settings: Settings, name: str, arguments: dict[str, object], call_id: str = "c1"
) -> ToolOutput:
    """Validate (the checks before a card) then run a side-effect tool, as the gate does after an Approve."""
    ctx = ToolContext(corpus=open_corpus(settings.data_dir), run_id="r1", call_id=call_id, tracker=tracker)
    registry = v2_registry()
    checked = validate(registry, name, json.dumps(arguments), ctx)
    if isinstance(checked, ToolOutput):
        return checked
    return execute(registry, name, checked, ctx)


def open_numbers(api: GitHubAPI, *, pulls: bool = False) -> list[int]:
    """Open issues (or open pull requests) of the stand-in's repository."""
    return [n for n, i in api.repo.issues.items() if i["state"] == "open" and ("pull_request" in i) == pulls]
