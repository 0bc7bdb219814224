"""`atlas sync github OWNER/REPO`: issues, comments, labels and docs into a project folder.

Each listing (issues with pull requests, issue comments) is walked newest-updated first, 100 per
page, along the `Link` header's next URL (never a page number built here). Page 1 is always asked
without `since`, conditional on the ETag it had last time: a 304 says nothing in the listing changed
(no rate-limit cost) and the walk stops there. Otherwise the walk goes on with `since` = the newest
`updated_at` of the last complete walk, sent as GitHub's own `YYYY-MM-DDTHH:MM:SSZ` string; sorted
the same way, the `since` listing is a prefix of the full one. The cursor (next URL, since) is
committed with every page, so an interrupted sync resumes at the next page. Anything that changed
meanwhile moved to the top and shifted the pages under the walk, so after a resumed or multi-page
walk page 1 is asked again (conditional on its ETag: 304 when nothing changed) from the new
high-water mark. Every `reconcile_every` syncs (or when asked) the issue numbers are reconciled
(github_reconcile). Labels are walked with per-page ETags; docs by the git tree (see github_docs).
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from githubkit import GitHub

from atlas.errors import GitHubFailure
from atlas.github_client import READ_ISSUES
from atlas.project_settings import GitHubSettings
from datasets.github.code import sync_code
from datasets.github.discussions import sync_discussions
from datasets.github.docs import sync_docs
from datasets.github.fetch import Fetcher, kept_open
from datasets.github.pull_files import sync_pull_files
from datasets.github.reconcile import reconcile as reconcile_numbers
from datasets.github.releases import sync_releases
from datasets.github.store import Store
from datasets.sync_progress import Progress
from datasets.tracker_db import SOURCE, ensure_db

log = logging.getLogger("atlas.github.sync")
PER_PAGE = 100
DEFAULT_DOCS = ("docs",)
MAX_REPROBES = 5  # a listing still changing after this many walks is left to the next sync


@dataclass
class SyncReport:
    """What one sync did, for the command's summary and the benchmarks."""

    repo: str
    folder: str
    complete: bool = False
    stopped: str | None = None  # why it stopped early, as a sentence
    pages: dict[str, int] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)  # listings answered 304
    docs_written: int = 0
    docs_removed: int = 0
    code_written: int = 0
    code_removed: int = 0
    releases: int | None = None  # releases written; None: the listing was unchanged (or releases are off)
    discussions: int | None = None  # discussions new or changed; None: discussions are off or were left out
    pull_files: int | None = None  # pull requests whose changed paths were asked; None: left out
    skipped: list[str] = field(default_factory=list)  # sources left out, each as a sentence (the sync went on)
    requests: int = 0
    not_modified: int = 0
    waited_seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    reconciled: bool = False  # every issue number was checked against GitHub's listing
    dropped: int = 0  # issues GitHub no longer has here (deleted or transferred), dropped by the reconcile
    kept: bool = False  # a project folder is there to serve (something was synced, now or before)
    github_open: int | None = (
        None  # GitHub's open_issues_count (issues and pull requests), to compare with counts["open"]
    )


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
        _labels(fetch, store, owner, name)
        _walk(
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
        _walk(
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


def _labels(fetch: Fetcher, store: Store, owner: str, name: str) -> None:
    """Every label of the repository, page by page along the Link header, each page conditional on its ETag."""
    names: list[str] = []
    page, changed, url = 1, False, None
    etags: list[tuple[str, str | None]] = []
    while True:
        key = url or f"repos/{owner}/{name}/labels?per_page={PER_PAGE}"
        doing = "list the labels of"
        got = (
            fetch.follow(url, doing=doing, needs=READ_ISSUES)
            if url
            else fetch.get(
                key,
                lambda h: fetch.client.rest.issues.list_labels_for_repo(owner, name, per_page=PER_PAGE, headers=h),
                doing=doing,
                needs=READ_ISSUES,
            )
        )
        if got.not_modified:
            names.extend(store.get(f"labels.page.{page}") or [])
            url = store.get(f"labels.page.{page}.next_url")
        else:
            changed = True
            page_names = [str(label["name"]) for label in got.data]
            names.extend(page_names)
            url = got.next_url
            store.put(f"labels.page.{page}", page_names)
            store.put(f"labels.page.{page}.next_url", url)
            etags.append((key, got.etag))
        fetch.progress.page("labels", 0 if got.not_modified else len(got.data), page, got.last_page, got.rate_left)
        if not url:
            break
        page += 1
    if changed:
        with store.batch():
            store.set_labels(names)
            for key, etag in etags:
                store.put_etag(key, etag)


def _walk(
    fetch: Fetcher,
    store: Store,
    report: SyncReport,
    listing: str,
    first: Callable[[dict[str, str]], Any],
    probe_key: str,
    put: Callable[[dict[str, Any]], None],
) -> None:
    """Walk one listing to its end, then re-probe page 1 until it answers 304.

    Items changed while the walk was going (or while a killed sync was down) move to the top of the
    listing and shift the later pages under it; the re-probe, conditional on the first page's ETag and
    with `since` = the new high-water mark, picks them up, and its 304 proves nothing changed meanwhile.
    A walk of page 1 alone cannot have missed anything, so it needs no re-probe.
    """
    cursor = store.get(f"cursor.{listing}")
    resumed = cursor is not None and "next" in cursor
    if cursor is not None and not resumed:
        cursor = None  # a cursor of an older Atlas (page numbers): walk again from the top
    for _ in range(MAX_REPROBES):
        if cursor is None:
            cursor = _probe(fetch, store, report, listing, first, probe_key, put)
            if cursor is None:
                return
        followed = _follow(fetch, store, report, listing, cursor, put)
        with store.batch():
            store.put(f"watermark.{listing}", cursor["newest"] or store.get(f"watermark.{listing}"))
            store.put_etag(probe_key, cursor["probe_etag"])
            store.put(f"cursor.{listing}", None)
        if not (resumed or followed):
            return
        cursor, resumed = None, False
    log.warning("the %s of %s kept changing during the sync; the next sync picks up the rest", listing, fetch.repo)


def _probe(
    fetch: Fetcher,
    store: Store,
    report: SyncReport,
    listing: str,
    first: Callable[[dict[str, str]], Any],
    probe_key: str,
    put: Callable[[dict[str, Any]], None],
) -> dict[str, Any] | None:
    """Page 1 without `since`, conditional on its ETag: None on 304, else the cursor for the pages after it."""
    probe = fetch.get(probe_key, first, doing=f"list the {listing} of", needs=READ_ISSUES)
    if probe.not_modified:
        if listing not in report.pages:
            report.unchanged.append(listing)
        fetch.progress.page(listing, 0, 1, None, probe.rate_left)
        return None
    watermark = store.get(f"watermark.{listing}")
    oldest = probe.data[-1]["updated_at"] if probe.data else None
    more = probe.next_url if probe.next_url and not (watermark and oldest and oldest < watermark) else None
    # GitHub's next URL for page 1 has no `since`: add the stored ISO string, exactly as GitHub documents it
    cursor = {
        "since": watermark,
        "next": with_since(more, watermark) if more else None,
        "page": 1,
        "newest": _newest(probe.data, watermark),
        "probe_etag": probe.etag,
    }
    with store.batch():
        for item in probe.data:
            put(item)
        store.put(f"cursor.{listing}", cursor)
    report.pages[listing] = report.pages.get(listing, 0) + 1
    fetch.progress.page(listing, len(probe.data), 1, probe.last_page, probe.rate_left)
    return cursor


def _follow(
    fetch: Fetcher,
    store: Store,
    report: SyncReport,
    listing: str,
    cursor: dict[str, Any],
    put: Callable[[dict[str, Any]], None],
) -> bool:
    """The pages after the probe, each along the previous page's Link; the cursor commits with each page."""
    followed = False
    while cursor["next"]:
        got = fetch.follow(cursor["next"], doing=f"list the {listing} of", needs=READ_ISSUES)
        data = got.data or []
        cursor.update(
            page=cursor["page"] + 1, newest=_newest(data, cursor["newest"]), next=got.next_url if data else None
        )
        with store.batch():
            for item in data:
                put(item)
            store.put(f"cursor.{listing}", cursor)
        followed = True
        report.pages[listing] = report.pages.get(listing, 0) + 1
        fetch.progress.page(listing, len(data), cursor["page"], got.last_page, got.rate_left)
    return followed


def with_since(url: str, since: str | None) -> str:
    """`url` with its `since` set to the stored `YYYY-MM-DDTHH:MM:SSZ` string (or left as it is)."""
    if not since:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "since"] + [("since", since)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def _newest(items: list[dict[str, Any]], current: str | None) -> str | None:
    stamps = [str(item["updated_at"]) for item in items if item.get("updated_at")]
    if current:
        stamps.append(current)
    return max(stamps) if stamps else None
