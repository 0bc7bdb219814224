"""The stand-in's label removal (`DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}`, GitHub's
issues/remove-label), what an Undo of triage sends for each label Atlas added (workers/new_issues/undo.py).

GitHub documents the reply as 200 with the labels the issue still carries, and 404 ("Label does not exist") when
the issue does not carry it. The trimmed description in tests/github/openapi.json has no such route (nor has
../shared's subset). GitHub documents its 200 reply as an array of `label`, the very schema of the add-labels
reply, so each reply is checked against that operation's response (tests/standins/github_spec.py).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from tests.standins import github_spec

ROUTE = re.compile(r"^/repos/[^/]+/[^/]+/issues/\d+/labels/[^/]+$")
TAIL = re.compile(r"/issues/(\d+)/labels/([^/]+)")


def outside_spec(path: str) -> bool:
    return ROUTE.match(path) is not None


def remove(repo: Any, tail: str) -> tuple[int, Any] | None:
    """(status, body) for a DELETE on `tail`, or None when `tail` is not this route."""
    m = TAIL.fullmatch(tail)
    if m is None:
        return None
    number, name = int(m.group(1)), unquote(m.group(2))
    issue = repo.issues.get(number)
    if issue is None or name not in {label["name"] for label in issue["labels"]}:
        message = "Not Found" if issue is None else "Label does not exist"
        return 404, {"message": message, "documentation_url": "https://docs.github.com/rest", "status": "404"}
    issue["labels"] = [label for label in issue["labels"] if label["name"] != name]
    repo.edit_issue(number)
    github_spec.check_response("POST", f"/repos/{repo.full_name}/issues/{number}/labels", 200, issue["labels"])
    return 200, issue["labels"]
