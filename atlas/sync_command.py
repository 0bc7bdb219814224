"""`atlas sync github OWNER/REPO`: wire the client, run one sync, print what it did and how to go on."""

from __future__ import annotations

import sys

from atlas.errors import GitHubConfigError, GitHubFailure
from atlas.github_client import client
from atlas.settings import Settings


def sync_github(settings: Settings, *, docs: list[str] | None, wait: bool) -> int:
    """Exit status 0 when the sync completed, 1 when it stopped early (what was synced is kept), 2 on bad config."""
    from datasets.github_sync import sync
    from datasets.sync_progress import Progress

    gh = settings.github
    assert gh is not None  # the command sets ATLAS_GITHUB_REPO from its argument
    try:
        report = sync(client(gh), gh, settings.data_dir, docs=docs, wait=wait, progress=Progress())
    except GitHubConfigError as exc:
        print(f"atlas sync: {exc}", file=sys.stderr)
        return 2
    except GitHubFailure as exc:
        print(f"atlas sync: {exc}", file=sys.stderr)
        return 1
    counts = report.counts
    print(f"{gh.repo}: {counts.get('issues', 0):,} issues ({counts.get('pull_requests', 0):,} pull requests kept out of "
          f"issue search), {counts.get('comments', 0):,} comments, {counts.get('labels', 0):,} labels, "
          f"{report.docs_written} docs updated, {report.docs_removed} removed; {report.requests} requests, "
          f"{report.not_modified} answered 304 (free) -> {report.folder}")
    if not report.complete:
        print(f"atlas sync: stopped early: {report.stopped}. What was synced so far is kept and served; "
              "run the same command again to continue from where it stopped.", file=sys.stderr)
        return 1
    print(f"Serve it: ATLAS_GITHUB_REPO={gh.repo} atlas serve (and atlas worker)")
    return 0
