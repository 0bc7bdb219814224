"""The stand-in's releases (`GET /repos/{owner}/{repo}/releases`, GitHub's repos/list-releases).

The trimmed description in tests/github/openapi.json (and ../shared/specs) has no releases route, so
these replies are checked instead against githubkit's `Release` model, which githubkit generates from
GitHub's published OpenAPI description: a reply missing a field GitHub documents fails to parse.
"""

from __future__ import annotations

import re
from typing import Any

from githubkit_schemas.v2026_03_10.models import Release

ROUTE = re.compile(r"^/repos/[^/]+/[^/]+/releases$")


def outside_spec(path: str) -> bool:
    """A path the trimmed OpenAPI description does not have (releases), checked by `checked` instead."""
    return ROUTE.match(path) is not None


def release(repo: Any, number: int, tag: str, name: str, body: str, published_at: str) -> dict[str, Any]:
    """One release as GitHub returns it."""
    author = repo.user(repo.owner)
    payload = {
        "url": repo.url(f"/releases/{number}"),
        "html_url": repo.html(f"/releases/tag/{tag}"),
        "assets_url": repo.url(f"/releases/{number}/assets"),
        "upload_url": f"https://uploads.github.com/repos/{repo.full_name}/releases/{number}/assets{{?name,label}}",
        "tarball_url": repo.url(f"/tarball/{tag}"),
        "zipball_url": repo.url(f"/zipball/{tag}"),
        "id": 50_000 + number,
        "node_id": f"RE_{number}",
        "tag_name": tag,
        "target_commitish": repo.default_branch,
        "name": name,
        "body": body,
        "draft": False,
        "prerelease": False,
        "immutable": False,
        "created_at": published_at,
        "published_at": published_at,
        "updated_at": published_at,
        "author": author,
        "assets": [],
    }
    return checked(payload)


def generated_notes(full_name: str, pulls: list[tuple[str, str, int]], previous: str, tag: str) -> str:
    """A release body as GitHub's "Generate release notes" writes it: each merged pull request by its full URL
    (`* title by @author in https://github.com/owner/name/pull/N`), first-time contributors, the compare link."""
    lines = [
        "## What's Changed",
        *(f"* {title} by @{who} in https://github.com/{full_name}/pull/{n}" for title, who, n in pulls),
    ]
    first = pulls[-1] if pulls else None
    if first is not None:
        lines += [
            "",
            "## New Contributors",
            f"* @{first[1]} made their first contribution in https://github.com/{full_name}/pull/{first[2]}",
        ]
    return "\n".join([*lines, "", f"**Full Changelog**: https://github.com/{full_name}/compare/{previous}...{tag}"])


def checked(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` unchanged, once githubkit's model of GitHub's Release accepts it."""
    Release.model_validate(payload)
    return payload
