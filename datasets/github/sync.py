"""`atlas sync github OWNER/REPO`: issues, comments, labels and docs into a project folder.

Each listing (issues with pull requests, issue comments, labels) is walked newest-updated first along
the `Link` header, page 1 conditional on its ETag, the rest with `since` from the last complete walk and a
cursor committed with every page (datasets/github/listing.py). Every `reconcile_every` syncs (or when
asked) the issue numbers are reconciled (github_reconcile); docs are read by the git tree (see github_docs).
Beyond them (issue 27): the paths each new or updated pull request changed (github_pull_files), the
code by blob sha (github_code), releases (github_releases) and discussions over GraphQL
(github_discussions); a source the token may not read is left out and said so, and the rest syncs.
Those per-item sources spend at most a share of the hourly rate limit, and skip what is too big
(datasets/github/budget.py); what they left out is said in the report (`atlas sync` prints it).
Every request goes over one kept-open connection (github_fetch.kept_open).
Items are written to the staging store as they arrive, and the project folder is exported from
it at the end, or when the sync stops early, so whatever was synced is served.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from githubkit import GitHub

from atlas.errors import GitHubFailure
from atlas.project_settings import GitHubSettings
from datasets.github.code import sync_code
from datasets.github.discussions import sync_discussions
from datasets.github.docs import sync_docs
from datasets.github.fetch import Fetcher, kept_open
from datasets.github.listing import PER_PAGE, labels, walk
from datasets.github.pull_files import sync_pull_files
from datasets.github.reconcile import reconcile as reconcile_numbers
from datasets.github.releases import sync_releases
from datasets.github.report import SyncReport
from datasets.github.store import Store
from datasets.sync_progress import Progress
from datasets.tracker_db import SOURCE, ensure_db

log = logging.getLogger("atlas.github.sync")
DEFAULT_DOCS = ("docs",)


def sync(
    client: GitHub[Any],
    gh: GitHubSettings,
    folder: Path,
    *,
    docs: list[str] | None = None,
    wait: bool = True,
    progress: Progress | None = None,
    sleep: Callable[[float], None] | None = None,
    build_index: bool = True,
    reconcile: bool = False,
) -> SyncReport:
    """One incremental (or resumed, or first full) sync of `gh.repo` into `folder`, over one kept-open connection."""
    with kept_open(client):
        return _sync(
            client,
            gh,
            folder,
            docs=docs,
            wait=wait,
            progress=progress,
            sleep=sleep,
            build_index=build_index,
            reconcile=reconcile,
        )


def _sync(
    client: GitHub[Any],
    gh: GitHubSettings,
    folder: Path,
    *,
    docs: list[str] | None,
    wait: bool,
    progress: Progress | None,
    sleep: Callable[[float], None] | None,
    build_index: bool,
    reconcile: bool,
) -> SyncReport:
    progress = progress or Progress()
    store = Store(folder)
    fetch = Fetcher(client, store, gh.repo, progress, wait=wait, **({"sleep": sleep} if sleep else {}))
    report = SyncReport(gh.repo, str(folder))
    owner, name = gh.owner, gh.name
    store.put("docs_roots", list(docs or DEFAULT_DOCS))  # push webhooks re-read the same folders
    first = (
        store.get("watermark.issues") is None and store.get("cursor.issues") is None
    )  # a full walk lists every number
    try:
        labels(fetch, store, owner, name)
        walk(
            fetch,
            store,
            report,
            "issues",
            lambda h: client.rest.issues.list_for_repo(
                owner, name, state="all", sort="updated", direction="desc", per_page=PER_PAGE, page=1, headers=h
            ),
            f"repos/{owner}/{name}/issues?state=all&sort=updated&direction=desc&per_page={PER_PAGE}",
            store.put_issue,
        )
        walk(
            fetch,
            store,
            report,
            "comments",
            lambda h: client.rest.issues.list_comments_for_repo(
                owner, name, sort="updated", direction="desc", per_page=PER_PAGE, page=1, headers=h
            ),
            f"repos/{owner}/{name}/issues/comments?sort=updated&direction=desc&per_page={PER_PAGE}",
            store.put_comment,
        )
        since = 0 if first else int(store.get("syncs_since_reconcile") or 0) + 1
        if reconcile or (not first and gh.reconcile_every > 0 and since >= gh.reconcile_every):
            report.dropped, report.reconciled, since = reconcile_numbers(fetch, store, owner, name), True, 0
        store.put("syncs_since_reconcile", since)  # a first sync's full walk lists every number anyway
        report.docs_written, report.docs_removed = sync_docs(
            fetch, store, owner, name, list(docs or DEFAULT_DOCS), gh.web_url
        )
        report.code_written, report.code_removed = sync_code(fetch, store, owner, name, gh.code_paths, gh.web_url)
        # after the docs and code: one request per pull request, the first to wait when the sync's share is spent
        report.pull_files = _left_out(
            fetch, report, "pull request files", "grant it", lambda: sync_pull_files(fetch, store, owner, name)
        )
        if gh.releases:
            report.releases = sync_releases(fetch, store, owner, name)
        if (
            gh.discussions and store.get("has_discussions") is not False
        ):  # a repository with them turned off costs nothing
            report.discussions = _left_out(
                fetch,
                report,
                "discussions",
                "grant it, or set ATLAS_SYNC_DISCUSSIONS=off",
                lambda: sync_discussions(fetch, store, owner, name),
            )
        report.complete = True
    except GitHubFailure as exc:
        report.stopped = exc.message
        log.info("sync of %s stopped: %s", gh.repo, exc.message)  # the caller reports it, once
    finally:
        for sentence in fetch.budget.left_out:  # what the caps and the rate-limit share left out, said once
            log.warning("sync of %s: %s", gh.repo, sentence)
            report.skipped.append(sentence)
        report.requests, report.not_modified = fetch.counters.requests, fetch.counters.not_modified
        report.waited_seconds = fetch.counters.waited_seconds
        report.counts = store.counts()
        report.github_open = store.get("open_issues_count")
        # a first sync that got nothing leaves nothing to serve (no empty project that looks synced)
        report.kept = (
            report.complete or any(report.counts.values()) or bool(store.docs()) or (folder / SOURCE).is_file()
        )
        if report.kept:
            store.export()
            store.export_pulls()
        store.close()
        progress.close()
    if build_index and report.kept:
        ensure_db(folder)
    return report


def _left_out(fetch: Fetcher, report: SyncReport, what: str, hint: str, run: Callable[[], int]) -> int | None:
    """One optional source: a token that may not read it (or a server without it) leaves it out, said once,
    and the sync goes on; any other failure stops the sync as usual."""
    try:
        return run()
    except GitHubFailure as exc:
        if exc.kind not in ("permission", "invalid"):
            raise
        report.skipped.append(
            f"{what} left out: {exc.message}; {hint}"
        )  # the command prints it once, after the summary
        log.info("sync of %s: %s", fetch.repo, report.skipped[-1])
        return None


__all__ = ["SyncReport", "sync"]
