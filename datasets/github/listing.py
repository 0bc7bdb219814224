"""The sync's walk of GitHub's listings (issues with pull requests, issue comments, labels) into the store.

Each listing (issues with pull requests, issue comments) is walked newest-updated first, 100 per
page, along the `Link` header's next URL (never a page number built here). Page 1 is always asked
without `since`, conditional on the ETag it had last time: a 304 says nothing in the listing changed
(no rate-limit cost) and the walk stops there. Otherwise the walk goes on with `since` = the newest
`updated_at` of the last complete walk, sent as GitHub's own `YYYY-MM-DDTHH:MM:SSZ` string; sorted
the same way, the `since` listing is a prefix of the full one. The cursor (next URL, since) is
committed with every page, so an interrupted sync resumes at the next page. Anything that changed
meanwhile moved to the top and shifted the pages under the walk, so after a resumed or multi-page
walk page 1 is asked again (conditional on its ETag: 304 when nothing changed) from the new
high-water mark. Labels are walked with per-page ETags.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from atlas.github_client import READ_ISSUES
from datasets.github.fetch import Fetcher
from datasets.github.report import SyncReport
from datasets.github.store import Store

log = logging.getLogger("atlas.github.sync")
PER_PAGE = 100
MAX_REPROBES = 5  # a listing still changing after this many walks is left to the next sync


def labels(fetch: Fetcher, store: Store, owner: str, name: str) -> None:
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


def walk(
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
