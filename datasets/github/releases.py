"""A repository's releases into knowledge/releases.jsonl: tag, name, date, notes (issue 27).

The first page is asked conditionally on its last ETag: a 304 says no release was published, edited or
deleted, and costs nothing. Otherwise every page is read along the Link header (repositories have tens
of releases, not thousands) and the file is rewritten whole, atomically, so a deleted release goes too.
Drafts (visible only to a token with push access) are left out: they are not published knowledge.
"""

from __future__ import annotations

from typing import Any

from atlas.github_client import READ_CONTENTS
from datasets.github.fetch import Fetcher
from datasets.github.store import Store
from datasets.knowledge_files import RELEASES, write_jsonl

PER_PAGE = 100


def sync_releases(fetch: Fetcher, store: Store, owner: str, name: str) -> int | None:
    """Rewrite releases.jsonl when the listing changed; returns how many were written (None: unchanged)."""
    gh = fetch.client
    key = f"repos/{owner}/{name}/releases?per_page={PER_PAGE}"
    first = fetch.get(
        key,
        lambda h: gh.rest.repos.list_releases(owner, name, per_page=PER_PAGE, page=1, headers=h),
        doing="list the releases of",
        needs=READ_CONTENTS,
    )
    if first.not_modified:
        return None
    found: list[dict[str, Any]] = list(first.data or [])
    page = first
    while page.next_url:
        page = fetch.follow(page.next_url, doing="list the releases of", needs=READ_CONTENTS)
        found += list(page.data or [])
    written = write_jsonl(store.folder / RELEASES, (_row(r) for r in found if not r.get("draft")))
    store.put_etag(key, first.etag)
    return written


def _row(raw: dict[str, Any]) -> dict[str, Any]:
    tag = str(raw.get("tag_name") or "")
    return {
        "tag": tag,
        "name": raw.get("name") or tag,
        "published_at": raw.get("published_at") or raw.get("created_at"),
        "author": (raw.get("author") or {}).get("login"),
        "body": raw.get("body") or "",
        "url": raw.get("html_url"),
    }
