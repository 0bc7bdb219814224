"""The worker's parts for one repository of several (issue 38): its settings, data folder, tracker, triage.

A job about one repository (a webhook delivery, a triage run, a write) takes `for_repo(rt, repo)`: everything
of the runtime, but the settings, the tracker and the triage engine are that repository's. With one repository
(or None) it is the runtime itself, so a single-repository install runs exactly as before.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from atlas import served_repos
from atlas.org_settings import org_project
from atlas.settings import Settings
from tools.corpus import open_corpus
from tools.repo_scope import RepoScope
from tools.tracker import Tracker
from tools.trackers import tracker_for
from workers.agent.sources import named_docs, source_url
from workers.chat import ChatPlatform
from workers.process import platforms
from workers.runs.state import Platform, RunState
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


def run_repo(settings: Settings, run: RunState) -> str | None:
    """The repository `run` is about: the one it recorded, its issue's (triage, filing), its channel's, the only
    one served; None for a question in a channel about none of several (every repository is searched)."""
    if run.repo:
        return run.repo
    if run.triage is not None:
        return run.triage.repo
    if run.filing is not None and run.filing.repo:
        return run.filing.repo
    mapped = settings.org.repo_for_channel(run.origin.channel)
    return mapped or (settings.repos[0] if len(settings.repos) == 1 else None)


def run_settings(settings: Settings, run: RunState | None) -> Settings:
    """The settings a run answers under: its repository's (folder, links, prompt), or, for a question about every
    repository of several, the install's with a project that names them all."""
    if run is None or not settings.org.many:
        return settings
    if run.repo:
        return settings.for_repo(run.repo)
    gh = settings.github
    return replace(settings, project=org_project(settings.project, gh.repo, settings.repos)) if gh else settings


def issue_links(settings: Settings, run: RunState) -> dict[str, str]:
    """The page of each issue the run cites, in the repository it belongs to: `#42` the run's repository's (the
    first's when it has none), `owner/b#42` owner/b's. Empty for one repository: its URL template links them."""
    if not settings.org.many:
        return {}
    links: dict[str, str] = {}
    for source in run.sources:
        repo, hash_, number = source.rpartition("#")
        if not hash_ or not number.isdigit():
            continue
        base = settings.for_repo(settings.org.canonical(repo) if repo else run.repo).issues_base_url
        if base and (not repo or settings.org.canonical(repo)):
            links[source] = source_url("#" + number, docs_base_url=None, issues_base_url=base) or ""
    return {k: v for k, v in links.items() if v}


def named_doc_links(settings: Settings, run: RunState) -> dict[str, str]:
    """A question about every repository of several: the docs it cites as shown, `owner/b: id`, each with its page
    ("" without one); a repository's corpus is opened only when a tool named it."""
    if not settings.org.many or run.repo or not run.answer:
        return {}
    pages: dict[str, Any] = {}

    def pages_of(repo: str) -> list[str]:
        one = settings.for_repo(repo)
        pages[repo] = open_corpus(one.data_dir, one.home, one.semantic_docs).docs.pages
        return list(pages[repo])

    found = [s.split(": ", 1) for s in named_docs(run, pages_of, settings.repos)]
    return {f"{repo}: {doc}": str(getattr(pages[repo].get(doc), "url", "") or "") for repo, doc in found}


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
    """The first repository's tracker whose `for_repo` (the `Tracker` interface's) gives any served repository's:
    what approval cards look issues up in (workers/messages/approval.py), so a card about `owner/b#42` shows
    owner/b's issue."""

    def __init__(self, runtime: Any) -> None:
        self._rt = runtime

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rt.tracker, name)

    def for_repo(self, repo: str) -> Tracker | None:
        """None for a repository not served now: its card shows the issue's number only."""
        return tracker_of(self._rt, repo) if served(self._rt, repo) else None
