"""Shared wiring for the GitHub tests: settings pointing at the stand-in, a client, a sync."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atlas import github_client
from atlas.settings import Settings
from datasets.github.sync import SyncReport, sync
from datasets.sync_progress import Silent
from tests.standins.github_api import GitHubAPI


def settings_for(api: GitHubAPI, home: Path, **extra: str) -> Settings:
    return Settings.from_env({**api.env(), "ATLAS_HOME": str(home), **extra})


def run_sync(
    api: GitHubAPI,
    settings: Settings,
    *,
    wait: bool = True,
    sleeps: list[float] | None = None,
    build_index: bool = True,
) -> SyncReport:
    gh = settings.github
    assert gh is not None
    sleeper = (lambda s: sleeps.append(s)) if sleeps is not None else (lambda s: None)
    return sync(
        github_client.client(gh),
        gh,
        settings.data_dir,
        wait=wait,
        progress=Silent(),
        sleep=sleeper,
        build_index=build_index,
    )


def exported(settings: Settings) -> dict[int, dict[str, Any]]:
    """issues.jsonl as the tools read it, by number."""
    path = settings.data_dir / "issues" / "issues.jsonl"
    return {row["id"]: row for row in map(json.loads, path.read_text().splitlines())}


def cli_env(monkeypatch: pytest.MonkeyPatch, api: GitHubAPI, home: Path) -> None:
    """The environment `atlas sync github` runs with in-process against the stand-in."""
    for key, value in {**api.env(), "ATLAS_HOME": str(home)}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("ATLAS_DATA", raising=False)
