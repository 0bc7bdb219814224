"""Which tracker a process writes through, chosen once from the settings at its entry point."""

from __future__ import annotations

import redis

from atlas.settings import Settings
from tools.demo_tracker import demo_tracker
from tools.tracker import Tracker


def tracker_for(settings: Settings, conn: redis.Redis | None = None) -> Tracker:
    """The GitHub tracker when a repository is configured, else the demo SQLite one of the data folder."""
    if settings.github is None:
        return demo_tracker(settings.data_dir, settings.issues_base_url, settings.home)
    return _github(settings, conn)


def _github(settings: Settings, conn: redis.Redis | None) -> Tracker:
    from atlas import github_client
    from tools.github.pacing import WritePacer
    from tools.github.tracker import GitHubTracker

    gh = settings.github
    assert gh is not None
    return GitHubTracker(gh, lambda: github_client.client(gh), settings.data_dir, WritePacer(conn, gh.repo))
