"""The stand-in's collaborator permissions (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`,
GitHub's repos/get-collaborator-permission-level), what Atlas asks about someone a webhook calls CONTRIBUTOR.

GitHub documents `permission` as the legacy base role (`admin`, `write`, `read`, `none`; `maintain` is given as
`write` and `triage` as `read`) and `role_name` as the role itself, custom ones included; an unknown user is 404.
The trimmed description in tests/github/openapi.json has no such route, so each reply is checked against
githubkit's `RepositoryCollaboratorPermission` model (generated from GitHub's published description) instead.
"""

from __future__ import annotations

import re
from typing import Any

from githubkit_schemas.v2026_03_10.models import RepositoryCollaboratorPermission

ROUTE = re.compile(r"^/repos/[^/]+/[^/]+/collaborators/[^/]+/permission$")
BASE = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}


def outside_spec(path: str) -> bool:
    return ROUTE.match(path) is not None


def reply(repo: Any, roles: dict[str, str], login: str, users: set[str]) -> tuple[int, dict[str, Any]]:
    """(status, body) for `login`: its role from `roles` (login -> role), `read` for any other known user of a
    public repository, 404 for someone GitHub does not know."""
    role = roles.get(login)
    if role is None and login not in users:
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}
    role = role or "read"
    user = {
        **repo.user(login),
        "permissions": {
            "admin": role == "admin",
            "maintain": role in ("admin", "maintain"),
            "push": BASE[role] in ("admin", "write"),
            "triage": role != "read",
            "pull": True,
        },
        "role_name": role,
    }
    body = {"permission": BASE[role], "role_name": role, "user": user}
    RepositoryCollaboratorPermission.model_validate(body)
    return 200, body
