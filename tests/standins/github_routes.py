"""The GitHub stand-in's endpoints over its repository (auth and rate limits are checked before)."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.standins.github_api import Call, GitHubAPI
    from tests.standins.github_repo import Repo

Reply = tuple[int, Any, dict[str, str]]


def route(api: GitHubAPI, repo: Repo, call: Call, tail: str, per_page: int) -> Reply:
    from tests.standins.github_gate import error as _error
    from tests.standins.github_paging import page_of

    m = re.fullmatch(r"/issues/(\d+)(/comments|/labels)?", tail)
    if m and int(m.group(1)) in repo.moved:  # transferred: every issue route redirects to the new repository's issue
        where = f"{api.base_url}{repo.moved[int(m.group(1))]}{m.group(2) or ''}"
        return (
            301,
            {"message": "Moved Permanently", "url": where, "documentation_url": "https://docs.github.com/rest"},
            {"Location": where},
        )
    if m and int(m.group(1)) in repo.deleted:
        return _error(410, "This issue was deleted")
    if call.method == "GET":
        if tail == "":
            return 200, repo.full_repository(), {}
        if tail in ("/issues", "/issues/comments") and not _valid_since(call):
            return _error(422, "Validation Failed", "since", "since must be a timestamp YYYY-MM-DDTHH:MM:SSZ")
        if tail == "/issues":
            items = _filtered(list(repo.issues.values()), call)
            if call.query.get("state", "open") != "all":
                items = [i for i in items if i["state"] == call.query.get("state", "open")]
            chunk, links = page_of(items, call, per_page, api.base_url, api)
            return 200, chunk, links
        if tail == "/issues/comments":
            chunk, links = page_of(_filtered(list(repo.comments.values()), call), call, per_page, api.base_url, api)
            return 200, chunk, links
        if tail.startswith("/collaborators/") and tail.endswith("/permission"):
            from tests.standins.github_collaborators import reply

            login = tail.split("/")[2]
            users = {i["user"]["login"] for i in repo.issues.values()} | {
                c["user"]["login"] for c in repo.comments.values()
            }
            status, body = reply(repo, api.roles, login, users | set(api.roles))
            return status, body, {}
        if tail.startswith("/pulls/"):
            from tests.standins.github_pulls import route as pull_files

            return pull_files(api, repo, call, per_page)
        if tail == "/releases":
            chunk, links = page_of(list(repo.releases), call, per_page, api.base_url, api)
            return 200, chunk, links
        if tail == "/labels":
            chunk, links = page_of(list(repo.labels.values()), call, per_page, api.base_url, api)
            return 200, chunk, links
        if tail.startswith("/git/trees/"):
            tree = repo.tree(tail.split("/")[-1], recursive="recursive" in call.query, limit=api.tree_limit)
            return (200, tree, {}) if tree else _error(404, "Not Found")
        if tail.startswith("/commits/"):
            commit = repo.commit(tail.split("/", 2)[-1])
            return (200, commit, {}) if commit else _error(422, "No commit found for SHA: " + tail.split("/", 2)[-1])
        if tail.startswith("/git/blobs/"):
            blob = repo.blob(tail.split("/")[-1])
            return (200, blob, {}) if blob else _error(404, "Not Found")
        if m and m.group(2) is None:
            issue = repo.issues.get(int(m.group(1)))
            return (200, issue, {}) if issue else _error(404, "Not Found")
        if m and m.group(2) == "/comments":
            number = int(m.group(1))
            if number not in repo.issues:
                return _error(404, "Not Found")
            mine = [c for c in repo.comments.values() if c["issue_url"].endswith(f"/issues/{number}")]
            chunk, links = page_of(mine, call, per_page, api.base_url, api)
            return 200, chunk, links
        return _error(404, "Not Found")
    if api.write_delay:
        time.sleep(api.write_delay)
    if call.method == "POST" and tail == "/issues":
        from tests.standins.github_new_issues import create

        status, issue = create(repo, call.body or {})
        return status, issue, {}
    if call.method == "DELETE":  # issues/remove-label (tests/standins/github_label_removal.py)
        from tests.standins import github_label_removal

        removed = github_label_removal.remove(repo, tail)
        return (removed[0], removed[1], {}) if removed is not None else _error(404, "Not Found")
    if not m or int(m.group(1)) not in repo.issues:
        return _error(404, "Not Found")
    number = int(m.group(1))
    body = call.body or {}
    if call.method == "POST" and m.group(2) == "/comments":
        return 201, repo.add_comment(number, str(body.get("body", "")), author="atlas-bot"), {}
    if call.method == "POST" and m.group(2) == "/labels":
        names = body.get("labels", []) if isinstance(body, dict) else body
        for name in names:
            if name not in repo.labels:
                repo.add_label(name)  # GitHub creates unknown labels: the project must not send them
        issue = repo.issues[number]
        have = {label["name"] for label in issue["labels"]}
        issue["labels"] += [repo.labels[n] for n in names if n not in have]
        repo.edit_issue(number)
        return 200, issue["labels"], {}
    if call.method == "PATCH" and m.group(2) is None:
        reason = body.get("state_reason")
        if reason == "duplicate":
            if api.reject_duplicate:
                return _error(422, "state_reason duplicate is not supported")
            originals = [i for i in repo.issues.values() if i["id"] == body.get("duplicate_issue_id")]
            if not originals:
                return _error(422, "duplicate_issue_id must be the id of an existing issue")
        changes = {k: v for k, v in body.items() if k in ("title", "body", "state", "state_reason")}
        return 200, repo.edit_issue(number, **changes), {}
    return _error(404, "Not Found")


SINCE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def _valid_since(call: Call) -> bool:
    """GitHub documents `since` as `YYYY-MM-DDTHH:MM:SSZ` and answers 422 for what it cannot read."""
    since = call.query.get("since")
    return since is None or SINCE.fullmatch(since) is not None


def _filtered(items: list[dict[str, Any]], call: Call) -> list[dict[str, Any]]:
    since = call.query.get("since")
    if since:
        items = [i for i in items if i["updated_at"] >= since]
    key = "updated_at" if call.query.get("sort") == "updated" else "created_at"
    reverse = call.query.get("direction", "desc") == "desc"
    return sorted(items, key=lambda i: (i[key], i["id"]), reverse=reverse)
