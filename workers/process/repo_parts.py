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
from tools.corpus import open_corpus
from tools.repo_scope import RepoScope
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
        s, engines = self.settings, self._rt.triage_engines
        engine: Triage = engines.engine(s.data_dir, s.home, s.semantic_docs)
        return engine

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


def scope_for(runtime: Any, channel: str | None) -> RepoScope | None:
    """What a run's tools may reach: every repository (a removed one refused when opened), the channel's first."""
    s = runtime.settings
    if not s.org.many:
        return None
    repos = tuple(dict.fromkeys((*s.repos, *served_repos.served(runtime.conn, s.repos))))

    def open_repo(repo: str) -> tuple[Any, Tracker] | str:
        if served(runtime, repo) is None:
            return (served_repos.withdrawn(runtime.conn, repo) or f"{repo} is not served by this install") + "."
        one = s.for_repo(repo)
        return open_corpus(one.data_dir, one.home, one.semantic_docs), tracker_of(runtime, repo)

    return RepoScope(repos, s.org.repo_for_channel(channel), open_repo)


class RoutingTracker:
    """The first repository's tracker that also gives another's (`for_repo`): what approval cards look issues up in
    (workers/messages/approval.py), so a card about `owner/b#42` shows owner/b's issue."""

    def __init__(self, runtime: Any) -> None:
        self._rt = runtime

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rt.tracker, name)

    def for_repo(self, repo: str) -> Tracker | None:
        """None for a repository not served now: its card shows the issue's number only."""
        return tracker_of(self._rt, repo) if served(self._rt, repo) else None
