"""The worker's parts for one repository of several (issue 38): its settings, data folder, tracker, triage.

A job about one repository (a webhook delivery, a triage run, a write) takes `for_repo(rt, repo)`: everything
of the runtime, but the settings, the tracker and the triage engine are that repository's. With one repository
(or None) it is the runtime itself, so a single-repository install runs exactly as before.
"""

from __future__ import annotations

import threading
from typing import Any

from atlas import served_repos
from atlas.settings import Settings
from tools.tracker import Tracker
from tools.trackers import tracker_for
from workers.chat import ChatPlatform
from workers.process import platforms
from workers.runs.state import Platform
from workers.triage.engine import Triage

_lock = threading.Lock()


class RepoParts:
    """`runtime` serving `repo` alone (a WorkerParts: workers/parts.py)."""

    def __init__(self, runtime: Any, repo: str) -> None:
        self._rt = runtime
        self.settings: Settings = runtime.settings.for_repo(repo)
        self.tracker: Tracker = tracker_of(runtime, repo)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rt, name)

    def triage_engine(self) -> Triage:
        s = self.settings
        return self._rt.triage_engines.engine(s.data_dir, s.home, s.semantic_docs)

    def platform_for(self, platform: Platform) -> ChatPlatform | None:
        return platforms.for_run(self.settings, self._rt.store, platform, self.tracker, self._rt.slack)


def for_repo(runtime: Any, repo: str | None) -> Any:
    """The parts of `repo` (its configured spelling), or the runtime itself for the first repository or None."""
    gh = runtime.settings.github
    if repo is None or gh is None or repo.lower() == gh.repo.lower():
        return runtime
    return RepoParts(runtime, repo)


def tracker_of(runtime: Any, repo: str) -> Tracker:
    """The repository's tracker, built once per process (its write pacing is per repository already)."""
    with _lock:
        kept: dict[str, Tracker] = runtime.repo_trackers
        key = repo.lower()
        if key not in kept:
            kept[key] = tracker_for(runtime.settings.for_repo(repo), runtime.conn)
        return kept[key]


def served(runtime: Any, repo: str) -> str | None:
    """`repo` as this install serves it now (configured, or added by the App's installation), else None."""
    return served_repos.serving(runtime.conn, runtime.settings.repos, repo)
