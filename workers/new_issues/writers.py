"""Who counts as a maintainer on GitHub for the triage inbox: write access to the repository.

A webhook's `author_association` says OWNER, MEMBER or COLLABORATOR for most, but CONTRIBUTOR (or NONE) for a
member whose organisation membership is private (issue 35 item 10). For those, the repository's collaborator
permission endpoint answers (admin or write: a maintainer), kept in Redis for an hour per person, so a busy
thread costs one request per person an hour. A bot is never a maintainer here, whatever its access. A lookup
that fails counts as not a maintainer (the card stays; nothing is written) and is not kept.
"""

from __future__ import annotations

import logging
from typing import Any

from atlas.connection import text
from tools.errors import TrackerError, TrackerUnavailable
from workers.parts import WorkerParts

log = logging.getLogger("atlas.new_issues")
WRITERS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
ASK_GITHUB = frozenset({"CONTRIBUTOR", "NONE", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER"})
WRITE_ROLES = frozenset({"admin", "write"})  # GitHub maps maintain to write, triage to read
CACHE_SECONDS = 3600


def is_writer(rt: WorkerParts, repo: str, association: str, user: Any) -> bool:
    """Whether `user` (a webhook's user object, anything else is nobody) may write to `repo`: by the association,
    else by asking GitHub."""
    user = user if isinstance(user, dict) else {}
    if str(user.get("type") or "") == "Bot":
        return False
    if association in WRITERS:
        return True
    login = str(user.get("login") or "")
    permission = getattr(rt.tracker, "permission", None)  # only the GitHub tracker knows collaborators
    if association not in ASK_GITHUB or not login or permission is None:
        return False
    key = f"atlas:github:permission:{repo}:{login.lower()}"
    kept = rt.conn.get(key)
    if kept is not None:
        return text(kept) in WRITE_ROLES
    try:
        role = str(permission(login))
    except (TrackerError, TrackerUnavailable) as exc:
        log.warning("could not read %s's permission on %s (%s): taken as no write access", login, repo, exc)
        return False
    rt.conn.set(key, role, ex=CACHE_SECONDS)
    return role in WRITE_ROLES
