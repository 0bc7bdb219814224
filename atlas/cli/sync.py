"""`atlas sync github OWNER/REPO`: wire the client, run one sync, print what it did and how to go on."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from atlas.errors import GitHubConfigError, GitHubFailure
from atlas.github_client import client
from atlas.settings import Settings

if TYPE_CHECKING:
    from datasets.github.sync import SyncReport


def sync_github(
    settings: Settings, *, docs: list[str] | None, wait: bool, reconcile: bool = False, every: bool = False
) -> int:
    """Exit status 0 when the sync completed, 1 when it stopped early (what was synced is kept), 2 on bad config.
    `every`: each configured repository in turn (issue 38); the worst status of them."""
    if not every:
        return _sync_one(settings, docs=docs, wait=wait, reconcile=reconcile)
    if not settings.repos:
        print("atlas sync: name OWNER/REPO, or set ATLAS_GITHUB_REPOS (or ATLAS_GITHUB_REPO)", file=sys.stderr)
        return 2
    worst = 0
    for repo in settings.repos:
        worst = max(worst, _sync_one(settings.for_repo(repo), docs=docs, wait=wait, reconcile=reconcile))
    return worst


def _sync_one(settings: Settings, *, docs: list[str] | None, wait: bool, reconcile: bool) -> int:
    from datasets.github.sync import sync
    from datasets.sync_progress import Progress

    gh = settings.github
    assert gh is not None  # the command sets ATLAS_GITHUB_REPO from its argument
    key_problem = gh.app_key_problem()
    if key_problem:
        print(f"atlas sync: configuration error: {key_problem}", file=sys.stderr)
        return 2
    try:
        report = sync(client(gh), gh, settings.data_dir, docs=docs, wait=wait, progress=Progress(), reconcile=reconcile)
    except GitHubConfigError as exc:
        print(f"atlas sync: {exc}", file=sys.stderr)
        return 2
    except GitHubFailure as exc:
        print(f"atlas sync: {exc}; nothing was synced", file=sys.stderr)
        return 1
    if not report.complete and not report.kept:
        print(
            f"atlas sync: {report.stopped}; nothing was synced, so run the same command again once that is fixed",
            file=sys.stderr,
        )
        return 1
    print(summary(report))
    if settings.triage.enabled:
        print(recalibration(settings, gh.repo))
    for line in report.skipped:
        print(f"atlas sync: {line}", file=sys.stderr)
    if not report.complete:
        print(
            f"atlas sync: stopped early: {report.stopped}. What was synced so far is kept and served; "
            "run the same command again to continue from where it stopped.",
            file=sys.stderr,
        )
        return 1
    open_synced = report.counts.get("open", 0)
    if report.github_open is not None and report.github_open != open_synced:
        print(
            f"atlas sync: GitHub counts {report.github_open:,} open issues and pull requests but {open_synced:,} are "
            f"synced (something changed during the sync, or an issue was deleted or moved); run `atlas sync github "
            f"{gh.repo} --reconcile` to check every number",
            file=sys.stderr,
        )
    if not settings.org.many:
        print(f"Serve it: ATLAS_GITHUB_REPO={gh.repo} atlas serve (and atlas worker)")
    return 0


def recalibration(settings: Settings, repo: str) -> str:
    """Ask a worker to recalibrate the repository's triage on what was synced (workers/triage/recalibration.py); a
    Redis that does not answer leaves it to the next triage job, and the sync stands either way."""
    from atlas.cli.triage_decisions import reachable
    from workers.triage import recalibration as asked

    conn = reachable(settings)
    if isinstance(conn, str):
        return f"triage: recalibrated at the next new issue ({conn})"
    try:
        done = asked.ask(conn, settings.queue_name, repo)
    finally:
        conn.close()
    return "triage:" + done.removeprefix(";") + (" for a worker" if done == asked.QUEUED else "")


def summary(report: SyncReport) -> str:
    """One line: what is in the folder now, GitHub's own open count beside ours, and what it cost."""
    counts = report.counts
    compared = (
        f"; {counts.get('open', 0):,} of GitHub's {report.github_open:,} open ones synced"
        if report.github_open is not None
        else ""
    )
    return (
        f"{report.repo}: {counts.get('issues', 0):,} issues "
        f"({counts.get('pull_requests', 0):,} pull requests kept out of "
        f"issue search){compared}, {counts.get('comments', 0):,} comments, {counts.get('labels', 0):,} labels, "
        f"{report.docs_written} docs updated, {report.docs_removed} removed; {report.requests} requests, "
        f"{report.not_modified} answered 304 (free)"
        + (f"; numbers reconciled: {report.dropped:,} deleted or transferred dropped" if report.reconciled else "")
        + f" -> {report.folder}"
    )
