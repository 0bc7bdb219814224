"""Which repository an MCP call is about when the install serves several (issue 38).

Read tools take an optional `repo` (null: every repository, each result naming its own); propose_action must name
one. The repositories served are the configured ones as a GitHub App's installation changed them (atlas/served_repos):
a removed one is refused by name, the refusal listing the ones served now, so the client can call again. Every
refusal is a value, never an exception.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import redis

from atlas import served_repos
from atlas.settings import Settings
from bot.mcp import wording
from tools.context import RepoScope

if TYPE_CHECKING:
    from tools.corpus import Corpus


def served(settings: Settings, conn: redis.Redis | None) -> tuple[str, ...]:
    """The repositories served now (the configured ones when Redis cannot say)."""
    return served_repos.served(conn, settings.repos)


def target(settings: Settings, conn: redis.Redis | None, given: object) -> tuple[str, bool]:
    """(the repository a proposal is on, True), or (why not, False). One repository: it, whatever was given."""
    if not settings.org.many:
        return (settings.github.repo if settings.github is not None else "demo"), True
    now = served(settings, conn)
    listed = ", ".join(now) or "none"
    if not isinstance(given, str) or not given.strip():
        return wording.NO_REPO.format(repos=listed), False
    name = _named(now, given)
    if name is not None:
        return name, True
    if settings.org.canonical(given) is not None:  # configured, then removed from the installation
        return wording.REMOVED_REPO.format(given=given.strip(), repos=listed), False
    return wording.UNKNOWN_REPO.format(given=given.strip(), repos=listed), False


def read_scope(settings: Settings, conn: redis.Redis | None) -> RepoScope | None:
    """What a read tool may reach: the repositories served now (one removed while the call runs is refused too)."""
    if not settings.org.many:
        return None
    from tools.corpus import open_corpus

    def open_repo(repo: str) -> tuple[Corpus, None] | str:
        now = served(settings, conn)
        if _named(now, repo) is None:
            return wording.REMOVED_READ.format(given=repo, repos=", ".join(now) or "none")
        one = settings.for_repo(repo)
        return open_corpus(one.data_dir, one.home, one.semantic_docs), None

    return RepoScope(served(settings, conn), None, open_repo)  # a name not among them: refused, listing them


def _named(repos: tuple[str, ...], given: str) -> str | None:
    """`given` as served: OWNER/REPO in any case, or REPO alone when one served repository has that name."""
    return RepoScope(repos, None, lambda _: "").name(given)
