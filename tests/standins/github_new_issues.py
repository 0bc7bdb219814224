"""The stand-in's `POST /repos/{owner}/{repo}/issues` (GitHub's issues/create) and `release.published` webhooks.

Neither is in GitHub's description as trimmed for the project (tests/github/openapi.json) nor in the shared
subset it was cut from (../shared/specs/github-openapi-issues.json has no issues/create and no release
webhooks), so, as for releases (github_releases.py), requests and replies are checked against githubkit's
models, which githubkit generates from GitHub's published description: the request body against
`ReposOwnerRepoIssuesPostBody` (unknown fields refused, as GitHub's schema has additionalProperties: false),
the reply against `Issue`, a webhook payload against `WebhookReleasePublished`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from githubkit_schemas.v2026_03_10.models import Issue, ReposOwnerRepoIssuesPostBody, WebhookReleasePublished

from tests.standins import github_spec
from tests.standins.github_repo import Repo

ROUTE = re.compile(r"^/repos/[^/]+/[^/]+/issues$")
BODY_FIELDS = set(ReposOwnerRepoIssuesPostBody.model_fields)


def outside_spec(method: str, path: str) -> bool:
    """A request the trimmed description does not have: issues/create."""
    return method == "POST" and ROUTE.match(path) is not None


def check_request(body: Any) -> str | None:
    """What GitHub would refuse in the body (None when it is valid)."""
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    unknown = set(body) - BODY_FIELDS
    if unknown:
        return f"unknown fields {sorted(unknown)}"
    try:
        ReposOwnerRepoIssuesPostBody.model_validate(body)
    except ValueError as exc:
        return str(exc)[:300]
    return None


def create(repo: Repo, body: dict[str, Any], author: str = "atlas-bot") -> tuple[int, Any]:
    """GitHub's answer to issues/create: 201 and the issue, or 422 for an empty title. Labels the caller may set
    that do not exist are created, as GitHub does (the project must not send them)."""
    title = str(body.get("title") or "")
    if not title.strip():
        return 422, {
            "message": "Validation Failed",
            "documentation_url": "https://docs.github.com/rest",
            "errors": [{"resource": "Issue", "code": "missing_field", "field": "title"}],
        }
    names = [str(label if isinstance(label, str) else label.get("name")) for label in body.get("labels") or []]
    for name in names:
        if name not in repo.labels:
            repo.add_label(name)
    issue = repo.add_issue(title, str(body.get("body") or ""), author=author, labels=tuple(names))
    Issue.model_validate(issue)
    return 201, issue


def release_published(repo: Repo, release: dict[str, Any]) -> dict[str, Any]:
    """A `release` webhook with action `published` for `repo`, checked against githubkit's model of it."""
    closed = github_spec.spec()["x-webhooks"]["issues-closed"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    base = github_spec._fill(closed, 0)  # the repository and sender as GitHub's webhooks carry them
    repository = copy.deepcopy(base["repository"])
    repository.update(
        {
            "id": repo.repo_id,
            "name": repo.name,
            "full_name": repo.full_name,
            "default_branch": repo.default_branch,
            "html_url": repo.html(),
        }
    )
    body = {
        "action": "published",
        "release": {**release, "assets": [], "mentions_count": 0},
        "repository": repository,
        "sender": base["sender"],
    }
    WebhookReleasePublished.model_validate(body)
    return body
