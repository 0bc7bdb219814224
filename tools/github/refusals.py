"""Issues Atlas must not write to on GitHub, recognised from what GitHub answers.

- **Transferred**: GitHub answers 301 with the new repository's issue in `Location` (a client that
  follows it would re-send a close there, and turn an add-labels POST into a GET that looks like
  success), or, through something that did follow it, an issue with another `number` or a foreign
  `repository_url`.
- **Deleted**: 410 Gone with "This issue was deleted" (any other 410 is not about the issue).
- **Pull requests**: the issue endpoints accept a pull request's number; its object has a
  `pull_request` key. Atlas labels, comments on and closes issues only.
Each is a `TrackerError` whose sentence ends "nothing was done", which the card and the model show.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from atlas.github_client import error_message
from tools.errors import TrackerError

REDIRECTS = (301, 302, 307, 308)
_ISSUE_URL = re.compile(r"/repos/([^/]+/[^/]+)/issues/(\d+)")


def transferred(number: int, to: str) -> TrackerError:
    return TrackerError(f"issue #{number} was transferred to {to}; nothing was done")


def deleted(number: int, repo: str) -> TrackerError:
    return TrackerError(f"issue #{number} was deleted from {repo}; nothing was done")


def repository_renamed(response: httpx.Response, repo: str) -> TrackerError | None:
    """A redirect to `/repositories/ID/...`: the repository itself was renamed or moved, not the issue."""
    if not re.search(r"/repositories/\d+(/|$)", response.headers.get("location", "")):
        return None
    return TrackerError(
        f"GitHub redirected: the repository {repo} was renamed or moved; set ATLAS_GITHUB_REPO to its "
        "new name; nothing was done"
    )


def redirect_target(response: httpx.Response) -> str:
    """`owner/repo` (or `owner/repo#N`) a redirect points to; "another repository" when it names none."""
    found = _ISSUE_URL.search(response.headers.get("location", ""))
    return found.group(1) if found else "another repository"


def moved_elsewhere(raw: dict[str, Any], number: int, repo: str) -> str | None:
    """Where an issue GitHub returned really lives when it is not `repo`'s `number` (a followed redirect)."""
    where = _ISSUE_URL.search(str(raw.get("url") or ""))
    home = re.search(r"/repos/([^/]+/[^/]+)$", str(raw.get("repository_url") or ""))
    owner_repo = home.group(1) if home else (where.group(1) if where else repo)
    if owner_repo.lower() != repo.lower() or int(raw.get("number") or 0) != number:
        return owner_repo if owner_repo.lower() != repo.lower() else f"{repo} as #{raw.get('number')}"
    return None


def is_deleted(response: httpx.Response) -> bool:
    """A 410 that says the issue was deleted (not a retired endpoint or API version)."""
    return "deleted" in error_message(response)


def refuse_pull_request(raw: dict[str, Any], number: int) -> None:
    """Raise when `raw` is a pull request: issue endpoints would label, comment on or close it."""
    if "pull_request" in raw:
        raise TrackerError(
            f"#{number} is a pull request, not an issue; Atlas labels, comments on and closes "
            "issues only, so nothing was done"
        )
