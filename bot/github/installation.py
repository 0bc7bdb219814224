"""A GitHub App's installation changing which repositories it covers: kept for every process, and a new one synced.

`installation_repositories` (added, removed) and `installation` (created, deleted, suspend, unsuspend) change the
set served (atlas/served_repos.py). A repository added, or covered by a new installation, gets its sync queued at
once (the backstop sync's job, which then keeps rescheduling itself while the repository is served), so it becomes
searchable without an operator. A deleted installation's repositories are removed; a suspended one's are withdrawn
until `unsuspend`. An installation event that lists no repositories (one covering all of the account's) applies to
every repository served now. Names must be GitHub `OWNER/REPO`s, else the delivery is 400.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from rq import Queue

from atlas import served_repos
from atlas.project_settings import repo_name_problem
from bot.github import payloads
from workers.runs.job_names import PERIODIC_SYNC  # by name: the web process does not load the worker

log = logging.getLogger("atlas.bot.github")
SYNC_TIMEOUT_SECONDS = 3600  # as the backstop sync's own (workers/jobs/github.py SYNC_LOCK_SECONDS)
HANDLED = ("created", "deleted", "suspend", "unsuspend")


def handle(conn: redis.Redis, queue: Queue, configured: tuple[str, ...], event: str, payload: dict[str, Any]) -> str:
    """Apply one installation delivery; what it did, for the 200's body. Malformed for a bad shape or name,
    RedisError when the change could not be kept (the caller answers 503 and GitHub may redeliver)."""
    parsed = payloads.check(event, payload)
    if event == "installation_repositories":
        added = _names(parsed.repositories_added)
        removed = _names(parsed.repositories_removed)
        action = "added" if added else "removed"
    else:
        action = parsed.action
        if action not in HANDLED:
            return f"ignored: installation {action}"
        listed = _names(parsed.repositories) if parsed.repositories is not None else None
        named = listed if listed is not None else list(served_repos.served(conn, configured))
        added, removed = (named, []) if action == "created" else ([], named if action == "deleted" else [])
        if action in ("suspend", "unsuspend"):
            (served_repos.suspend if action == "suspend" else served_repos.unsuspend)(conn, named)
            log.info("GitHub App installation %s: %s", action, ", ".join(named) or "no repository")
            return f"repositories: {len(named)} {action}ed"
    served_repos.change(conn, added, removed)
    for name in added:
        queue.enqueue(PERIODIC_SYNC, name, job_timeout=SYNC_TIMEOUT_SECONDS, description=f"atlas sync {name}")
    log.info("GitHub App installation: added %s, removed %s", added or "none", removed or "none")
    return f"repositories: {len(added)} added (sync queued), {len(removed)} removed"


def _names(listed: list[payloads.RepositoryRef]) -> list[str]:
    names = [r.full_name for r in listed]
    bad = [name for name in names if repo_name_problem(name)]
    if bad:
        raise payloads.Malformed(f"malformed installation payload: {bad[0]!r} is no OWNER/REPO")
    return names
