"""The paths each pull request changed (`GET /repos/{o}/{r}/pulls/{n}/files`), for knowledge/pulls.jsonl (issue 27).

Pull requests come with the issue listing; their files do not. After the listings, only the pull
requests that are new or whose `updated_at` moved since their files were read are asked (a pushed
commit moves it), each page along the Link header, paths only (a renamed file: both paths), never the
diff. A single-page listing is asked conditionally on its last ETag, so a pull request updated by a
comment alone costs a 304. What was read is committed per pull request, so a killed sync goes on
from the next one. A pull request GitHub no longer has is recorded with no files.
"""

from __future__ import annotations

import json
from typing import Any

from atlas.errors import GitHubFailure
from datasets.github.budget import PULL_FILES_CUT
from datasets.github.fetch import Fetcher
from datasets.github.store import Store

PER_PAGE = 100
READ_PULLS = "Pull requests: read"
DUE = (
    "SELECT i.number, i.updated_at FROM issues i LEFT JOIN pull_files f ON f.number = i.number"
    " WHERE i.is_pr = 1 AND (f.number IS NULL OR f.updated_at IS NOT i.updated_at) ORDER BY i.number"
)


def sync_pull_files(fetch: Fetcher, store: Store, owner: str, name: str) -> int:
    """Read the changed paths of every pull request that is new or updated since; returns how many were asked."""
    due = store.conn.execute(DUE).fetchall()
    for done, (number, updated_at) in enumerate(due):
        if not fetch.affordable():  # the rest waits for the next sync, which asks exactly these
            fetch.budget.spent_note("pull requests' files", len(due) - done)
            return done
        key = f"repos/{owner}/{name}/pulls/{number}/files?per_page={PER_PAGE}"
        files, etag = _files(fetch, key, owner, name, int(number))
        with store.batch():  # the paths and the ETag they were read under commit together
            if files is not None:
                store.conn.execute(
                    "INSERT OR REPLACE INTO pull_files(number, updated_at, files) VALUES (?, ?, ?)",
                    (int(number), updated_at, json.dumps(files)),
                )
                store.conn.execute("DELETE FROM etags WHERE url = ?", (key,))
                store.put_etag(key, etag)
            else:  # 304: the paths stored are still current
                store.conn.execute("UPDATE pull_files SET updated_at = ? WHERE number = ?", (updated_at, int(number)))
        fetch.progress.page("pull request files", 1, 1, None, None)
    return len(due)


def _files(fetch: Fetcher, key: str, owner: str, name: str, number: int) -> tuple[list[str] | None, str | None]:
    """The paths the pull request changed and the ETag to ask with next time (None: page 1's says nothing of the
    pages after it); (None, None) when its single page answered 304."""
    gh, doing = fetch.client, f"list the files of pull request #{number} of"
    try:
        page = fetch.get(
            key,
            lambda h: gh.rest.pulls.list_files(owner, name, number, per_page=PER_PAGE, page=1, headers=h),
            doing=doing,
            needs=READ_PULLS,
        )
        if page.not_modified:
            return None, None
        entries: list[dict[str, Any]] = list(page.data or [])
        single, etag = page.next_url is None, page.etag
        while page.next_url:
            page = fetch.follow(page.next_url, doing=doing, needs=READ_PULLS)
            entries += list(page.data or [])
    except GitHubFailure as exc:
        if exc.kind != "not_found":
            raise
        return [], None
    if len(entries) >= PULL_FILES_CUT:
        fetch.budget.note(
            f"pull request #{number}: GitHub lists only its first {PULL_FILES_CUT} changed files; "
            "the rest are not known"
        )
    paths: list[str] = []
    for entry in entries:
        for path in (entry.get("previous_filename"), entry.get("filename")):
            if isinstance(path, str) and path and path not in paths:
                paths.append(path)
    return paths, etag if single else None
