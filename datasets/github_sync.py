"""`atlas sync github OWNER/REPO`: issues, comments, labels and docs into a project folder.

Each listing (issues with pull requests, issue comments) is walked newest-updated first, 100 per
page. Page 1 is always asked without `since`, conditional on the ETag it had last time: a 304 says
nothing in the listing changed (no rate-limit cost) and the walk stops there. Otherwise the walk
continues with `since` = the newest `updated_at` of the last complete walk; sorted the same way,
the `since` listing is a prefix of the full one, so its page N is the full listing's page N.
The cursor (listing, page, since) is committed with every page, so an interrupted sync resumes
at the next page. Labels are walked with per-page ETags; docs by the git tree (see github_docs).
Items are written to the staging store as they arrive, and the project folder is exported from
it at the end, or when the sync stops early, so whatever was synced is served.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from githubkit import GitHub

from atlas.errors import GitHubFailure
from atlas.github_client import READ_ISSUES
from atlas.project_settings import GitHubSettings
from datasets.github_docs import sync_docs
from datasets.github_fetch import Fetcher
from datasets.github_store import Store
from datasets.sync_progress import Progress
from datasets.tracker_db import ensure_db

log = logging.getLogger("atlas.github.sync")
PER_PAGE = 100
DEFAULT_DOCS = ("docs",)


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
    requests: int = 0
    not_modified: int = 0
    waited_seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def sync(client: GitHub, gh: GitHubSettings, folder: Path, *, docs: list[str] | None = None, wait: bool = True,
         progress: Progress | None = None, sleep: Callable[[float], None] | None = None, build_index: bool = True) -> SyncReport:
    """One incremental (or resumed, or first full) sync of `gh.repo` into `folder`."""
    progress = progress or Progress()
    store = Store(folder)
    fetch = Fetcher(client, store, gh.repo, progress, wait=wait, **({"sleep": sleep} if sleep else {}))
    report = SyncReport(gh.repo, str(folder))
    owner, name = gh.owner, gh.name
    store.put("docs_roots", list(docs or DEFAULT_DOCS))  # push webhooks re-read the same folders
    try:
        _labels(fetch, store, owner, name)
        _walk(fetch, store, report, "issues",
              lambda h, since, page: client.rest.issues.list_for_repo(
                  owner, name, state="all", sort="updated", direction="desc", **({"since": since} if since else {}), per_page=PER_PAGE, page=page,
                  headers=h),
              f"repos/{owner}/{name}/issues?state=all&sort=updated&direction=desc&per_page={PER_PAGE}",
              store.put_issue)
        _walk(fetch, store, report, "comments",
              lambda h, since, page: client.rest.issues.list_comments_for_repo(
                  owner, name, sort="updated", direction="desc", **({"since": since} if since else {}), per_page=PER_PAGE, page=page, headers=h),
              f"repos/{owner}/{name}/issues/comments?sort=updated&direction=desc&per_page={PER_PAGE}",
              store.put_comment)
        report.docs_written, report.docs_removed = sync_docs(fetch, store, owner, name, list(docs or DEFAULT_DOCS), gh.web_url)
        report.complete = True
    except GitHubFailure as exc:
        report.stopped = exc.message
        log.warning("sync of %s stopped: %s", gh.repo, exc.message)
    finally:
        report.requests, report.not_modified = fetch.counters.requests, fetch.counters.not_modified
        report.waited_seconds = fetch.counters.waited_seconds
        report.counts = store.counts()
        store.export()
        store.close()
        progress.close()
    if build_index:
        ensure_db(folder)
    return report


def _labels(fetch: Fetcher, store: Store, owner: str, name: str) -> None:
    """Every label of the repository, page by page, each page conditional on its ETag."""
    names: list[str] = []
    page, changed = 1, False
    etags: list[tuple[str, str | None]] = []
    while True:
        key = f"repos/{owner}/{name}/labels?per_page={PER_PAGE}&page={page}"
        got = fetch.get(key, lambda h: fetch.client.rest.issues.list_labels_for_repo(owner, name, per_page=PER_PAGE, page=page, headers=h),
                        doing="list the labels of", needs=READ_ISSUES)
        if got.not_modified:
            cached = store.get(f"labels.page.{page}")
            names.extend(cached or [])
            has_next = bool(store.get(f"labels.page.{page}.next"))
        else:
            changed = True
            page_names = [str(label["name"]) for label in got.data]
            names.extend(page_names)
            has_next = got.has_next
            store.put(f"labels.page.{page}", page_names)
            store.put(f"labels.page.{page}.next", has_next)
            etags.append((key, got.etag))
        fetch.progress.page("labels", 0 if got.not_modified else len(got.data), page, got.last_page, got.rate_left)
        if not has_next:
            break
        page += 1
    if changed:
        with store.batch():
            store.set_labels(names)
            for key, etag in etags:
                store.put_etag(key, etag)


def _walk(fetch: Fetcher, store: Store, report: SyncReport, listing: str, call: Callable[..., Any], probe_key: str,
          put: Callable[[dict[str, Any]], None]) -> None:
    cursor = store.get(f"cursor.{listing}")
    if cursor is None:
        probe = fetch.get(probe_key, lambda h: call(h, None, 1), doing=f"list the {listing} of", needs=READ_ISSUES)
        if probe.not_modified:
            report.unchanged.append(listing)
            fetch.progress.page(listing, 0, 1, None, probe.rate_left)
            return
        watermark = store.get(f"watermark.{listing}")
        newest = _newest(probe.data, None)
        oldest = probe.data[-1]["updated_at"] if probe.data else None
        more = probe.has_next and not (watermark and oldest and oldest < watermark)
        cursor = {"since": watermark, "page": 1, "newest": newest, "probe_etag": probe.etag, "more": more}
        with store.batch():
            for item in probe.data:
                put(item)
            store.put(f"cursor.{listing}", cursor)
        report.pages[listing] = 1
        fetch.progress.page(listing, len(probe.data), 1, probe.last_page, probe.rate_left)
    since = datetime.fromisoformat(cursor["since"].replace("Z", "+00:00")) if cursor["since"] else None
    while cursor["more"]:
        page = cursor["page"] + 1
        key = f"{probe_key}&page={page}" + (f"&since={cursor['since']}" if since else "")
        got = fetch.get(key, lambda h: call(h, since, page), doing=f"list the {listing} of", needs=READ_ISSUES)
        data = got.data or []
        cursor = {**cursor, "page": page, "newest": _newest(data, cursor["newest"]), "more": got.has_next and bool(data)}
        with store.batch():
            for item in data:
                put(item)
            store.put(f"cursor.{listing}", cursor)
        report.pages[listing] = report.pages.get(listing, 0) + 1
        fetch.progress.page(listing, len(data), page, got.last_page, got.rate_left)
    with store.batch():
        store.put(f"watermark.{listing}", cursor["newest"] or store.get(f"watermark.{listing}"))
        store.put_etag(probe_key, cursor["probe_etag"])
        store.put(f"cursor.{listing}", None)


def _newest(items: list[dict[str, Any]], current: str | None) -> str | None:
    stamps = [str(item["updated_at"]) for item in items if item.get("updated_at")]
    if current:
        stamps.append(current)
    return max(stamps) if stamps else None
