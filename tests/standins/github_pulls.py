"""The stand-in's pull request files (`GET /repos/{owner}/{repo}/pulls/{pull_number}/files`, GitHub's pulls/list-files).

Neither the trimmed description in tests/github/openapi.json nor ../shared/specs has the pulls routes, but
both carry GitHub's `diff-entry` schema: every file of a reply is built from it and checked against it, and
the request's query may hold only what GitHub documents for the operation (`per_page`, `page`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests.standins import github_spec

if TYPE_CHECKING:
    from tests.standins.github_api import Call, GitHubAPI
    from tests.standins.github_repo import Repo

ROUTE = re.compile(r"^/repos/[^/]+/[^/]+/pulls/(\d+)/files$")
QUERY = {"per_page", "page"}


def outside_spec(path: str) -> bool:
    """A path the description has no operation for (checked here instead)."""
    return ROUTE.match(path) is not None


def set_files(repo: Repo, number: int, paths: list[str], *, renamed_from: dict[str, str] | None = None) -> None:
    """The files pull request `number` changes (a path in `renamed_from` was renamed from its value); its
    `updated_at` moves, as a push to a pull request's branch moves it on GitHub."""
    with repo.lock:
        entries = []
        for path in paths:
            entry = github_spec.skeleton("diff-entry")
            old = (renamed_from or {}).get(path)
            entry.update(
                filename=path,
                status="renamed" if old else "modified",
                additions=3,
                deletions=1,
                changes=4,
                sha="0" * 40,
                blob_url=repo.html(f"/blob/{'0' * 40}/{path}"),
                raw_url=repo.html(f"/raw/{'0' * 40}/{path}"),
                contents_url=repo.url(f"/contents/{path}?ref={'0' * 40}"),
                patch="@@ -1 +1 @@",
            )
            if old:
                entry["previous_filename"] = old
            _check(entry)
            entries.append(entry)
        repo.pull_files[number] = entries
        repo.edit_issue(number)


def route(api: GitHubAPI, repo: Repo, call: Call, per_page: int) -> tuple[int, Any, dict[str, str]]:
    from tests.standins.github_gate import error as _error
    from tests.standins.github_paging import page_of

    m = ROUTE.match(call.path)
    assert m is not None
    unknown = set(call.query) - QUERY
    if unknown:
        api.violations.append(f"request GET {call.path}: pulls/list-files: unknown query parameters {sorted(unknown)}")
        return _error(400, f"unknown query parameters {sorted(unknown)}")
    number = int(m.group(1))
    issue = repo.issues.get(number)
    if issue is None or "pull_request" not in issue:
        return _error(404, "Not Found")
    # GitHub's documented cut: "Responses include a maximum of 3000 files"
    chunk, links = page_of(list(repo.pull_files.get(number, []))[:3000], call, per_page, api.base_url, api)
    if api.validate:
        try:
            for entry in chunk:
                _check(entry)
        except github_spec.SpecViolation as exc:
            api.violations.append(f"response GET {call.path}: {exc}")
    return 200, chunk, links


def _check(entry: dict[str, Any]) -> None:
    github_spec._check("/components/schemas/diff-entry", entry, "pulls/list-files 200 response item")
