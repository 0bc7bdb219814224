"""Issue numbers reconciled with GitHub: what no webhook said was deleted or transferred is dropped.

GitHub does not redeliver a webhook Atlas missed, and a deleted or transferred issue simply stops
appearing in the listings, so an incremental sync never learns of it. Now and then the sync lists
every number (state=all, oldest first, along the Link header) and asks GitHub about each stored number
the listing lacks: 404 or 410 is deleted, 301 (or an answer from another repository) is transferred,
and only those are dropped. A number that went missing because the listing shifted under the walk
answers 200 and is kept. Redirects are not followed, so a transferred issue is never read from its new home.
"""

from __future__ import annotations

import logging

import httpx

from atlas.github_client import READ_ISSUES, failure
from datasets.github.fetch import Fetcher
from datasets.github.store import Store

log = logging.getLogger("atlas.github.sync")
PER_PAGE = 100


def listed_numbers(fetch: Fetcher, owner: str, name: str) -> set[int]:
    """Every issue and pull request number GitHub lists for the repository now."""
    gh, doing = fetch.client, "list every issue number of"
    page = fetch.get(
        f"repos/{owner}/{name}/issues?state=all&sort=created&direction=asc&per_page={PER_PAGE}",
        lambda h: gh.rest.issues.list_for_repo(
            owner, name, state="all", sort="created", direction="asc", per_page=PER_PAGE, headers=h
        ),
        doing=doing,
        needs=READ_ISSUES,
    )
    numbers: set[int] = set()
    while True:
        numbers.update(int(item["number"]) for item in page.data or [])
        if not page.next_url or not page.data:
            return numbers
        page = fetch.follow(page.next_url, doing=doing, needs=READ_ISSUES)


def gone(fetch: Fetcher, owner: str, name: str, number: int) -> bool:
    """Whether GitHub says issue `number` is no longer this repository's (deleted: 404/410; transferred: 301)."""
    fetch.counters.requests += 1
    try:
        with fetch.client.get_sync_client() as http:
            response = http.get(f"/repos/{owner}/{name}/issues/{number}", follow_redirects=False)
    except httpx.HTTPError as exc:
        raise failure(exc, fetch.repo, f"check issue #{number} of") from None
    if response.status_code in (301, 404, 410):
        return True
    if response.status_code != 200:
        log.info("reconcile: GitHub answered %s for #%s of %s; kept", response.status_code, number, fetch.repo)
        return False
    data = response.json()
    home = str(data.get("repository_url") or "")
    return int(data.get("number") or 0) != number or not home.lower().endswith(f"/repos/{owner}/{name}".lower())


def reconcile(fetch: Fetcher, store: Store, owner: str, name: str) -> int:
    """Drop the stored issues GitHub no longer has here; returns how many were dropped."""
    missing = sorted(set(store.numbers()) - listed_numbers(fetch, owner, name))
    dropped = [number for number in missing if gone(fetch, owner, name, number)]
    with store.batch():
        for number in dropped:
            store.delete_issue(number)
    if dropped:
        log.info("reconcile of %s/%s dropped %s", owner, name, dropped)
    return len(dropped)
