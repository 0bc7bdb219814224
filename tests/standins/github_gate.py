"""What the GitHub stand-in checks before it routes a request, in GitHub's order: the hooks, revocations and faults
a test set, a GitHub App's installation token, GraphQL's own door, the API version, the token and its permissions,
the secondary and primary rate limits, a renamed repository's 301 and `per_page`. What passes goes to
tests/standins/github_routes.py.
"""

from __future__ import annotations

import time
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from tests.standins import github_graphql, github_spec
from tests.standins.github_paging import BadPage

if TYPE_CHECKING:
    from tests.standins.github_api import Call, GitHubAPI


def error(
    status: int, message: str, field: str = "state_reason", detail: str | None = None
) -> tuple[int, Any, dict[str, str]]:
    body: dict[str, Any] = {"message": message, "documentation_url": "https://docs.github.com/rest"}
    if status == 422:
        body["errors"] = [{"resource": "Issue", "code": "invalid", "field": field, "message": detail or message}]
    return status, body, {}


def serve(api: GitHubAPI, call: Call) -> tuple[int, Any, dict[str, str]]:
    for i, (pattern, hook) in enumerate(list(api.hooks)):
        if pattern.search(f"{call.method} {call.path}?{urlencode(call.query)}"):
            del api.hooks[i]
            hook()
            break
    for pattern, revoked in list(api.revocations):
        if pattern.search(f"{call.method} {call.path}?{urlencode(call.query)}"):
            api.revoke(revoked)
    for i, (pattern, status) in enumerate(api.faults):
        if pattern.search(f"{call.method} {call.path}?{urlencode(call.query)}"):
            del api.faults[i]
            return error(status, HTTPStatus(status).phrase)
    if call.path.startswith("/app/installations/"):
        return installation_token(api, call)
    if call.method == "POST" and call.path in github_graphql.PATHS:
        auth = call.headers.get("authorization", "")
        limited = api.graphql_limited > 0
        status, reply = github_graphql.serve(api, auth.split(" ", 1)[1] if " " in auth else "", call.body)
        return status, reply, ({"x-ratelimit-remaining": "0", "x-ratelimit-resource": "graphql"} if limited else {})
    auth = call.headers.get("authorization", "")
    token = auth.split(" ", 1)[1] if " " in auth else ""
    if call.path.endswith("/installation") and auth.startswith("Bearer ") and api.app_id:
        install = github_spec.skeleton("installation")
        install.update(id=api.installation_id, app_id=int(api.app_id), target_type="Organization")
        return 200, install, {}
    version = call.headers.get("x-github-api-version")
    if version is not None and version not in api.api_versions:
        return error(400, f"The API version {version} is not supported.")
    permissions = api.tokens.get(token)
    if permissions is None:
        return error(401, "Bad credentials")
    if api.secondary and not call.headers.get("if-none-match"):
        seconds = api.secondary.popleft()
        return (
            403,
            {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                "documentation_url": "https://docs.github.com",
            },
            ({} if seconds is None else {"retry-after": str(seconds)}),
        )
    if api.rate_remaining <= 0 and not call.headers.get("if-none-match"):
        return 403, {"message": "API rate limit exceeded for user.", "documentation_url": "https://docs.github.com"}, {}
    old = next((n for n in api.old_names if call.path.startswith(f"/repos/{n}/")), None)
    if old is not None:
        where = f"{api.base_url}/repositories/{api.repo.repo_id}{call.path[len(f'/repos/{old}') :]}"
        return (
            301,
            {"message": "Moved Permanently", "url": where, "documentation_url": "https://docs.github.com/rest"},
            {"Location": where},
        )
    repo = next((r for r in (api.repo, *api.others.values()) if call.path.startswith(f"/repos/{r.full_name}")), None)
    if repo is None:
        return error(404, "Not Found")
    prefix = f"/repos/{repo.full_name}"
    tail = call.path[len(prefix) :]
    needs = (
        "contents"
        if tail == "" or tail.startswith("/git/")
        else "pull_requests"
        if tail.startswith("/pulls")
        else "metadata"
        if tail.startswith("/collaborators/")
        else "issues"
    )
    level = permissions.get(needs)
    if level is None or (call.method != "GET" and level != "write"):
        return error(403, "Resource not accessible by personal access token")
    per_page = int(call.query.get("per_page", "30"))
    if per_page > 100:
        return error(422, "per_page must be at most 100")
    from tests.standins.github_routes import route

    with repo.lock:
        try:
            return route(api, repo, call, tail, per_page)
        except BadPage:
            return error(422, "Validation Failed", "page", "page is not one this listing gave out")


def installation_token(api: GitHubAPI, call: Call) -> tuple[int, Any, dict[str, str]]:
    from tests.standins.github_api import ALL

    if not call.headers.get("authorization", "").startswith("Bearer "):
        return error(401, "A JSON web token could not be decoded")
    token = f"ghs_installation_{len(api.tokens)}"
    api.tokens[token] = dict(ALL)
    expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    return 201, {"token": token, "expires_at": expires}, {}
