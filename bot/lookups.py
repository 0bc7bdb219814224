"""Slash-command lookups: parse `issue <n>`, `search <words> [open|closed]`, `docs <words>`, `help`
and run them through the same tools the model uses (no model, no Redis: local and fast).

With several repositories (issue 38) `issue #42` is the channel's repository's (every one's elsewhere), and
`issue owner/b#42` or `issue b#42` names one; searches are the channel's repository's, or every one's.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from workers.messages.lookup import Lookup, Result, Usage

__all__ = ["Lookup", "Lookups", "Result", "Usage", "parse"]  # the values live with the messages; parsed here

log = logging.getLogger("atlas.bot.lookups")

MAX_TEXT_CHARS = 300  # the command text; it is also the share button's value (Slack allows 2,000)
SEARCH_LIMIT = 10
DOCS_K = 5

REPO_REF = re.compile(r"^(?:([A-Za-z0-9][A-Za-z0-9._/-]{0,140})#|#)?(\d+)$")  # owner/b#42, b#42, #42, 42


def parse(text: str) -> Lookup | Usage:
    """`issue 42`, `issue #42`, `search redis timeout closed`, `docs lease_seconds`, `help` (or nothing)."""
    words = (text or "").split()
    if not words or words[0].lower() in ("help", "-h", "--help", "?"):
        return Lookup("help")
    if len(text) > MAX_TEXT_CHARS:
        return Usage("TOO_LONG")
    head, rest = words[0].lower(), words[1:]
    if head == "issue":
        found = REPO_REF.match(rest[0]) if len(rest) == 1 else None
        if found is None or not 0 < int(found.group(2)) < 10**9:
            return Usage("ISSUE_NEEDS_NUMBER")
        return Lookup("issue", str(int(found.group(2))), repo=found.group(1) or None)
    if head == "search":
        state = None
        if rest and rest[-1].lower() in ("open", "closed"):
            state = rest[-1].lower()
            rest = rest[:-1]
        if not rest:
            return Usage("SEARCH_NEEDS_WORDS")
        return Lookup("search", " ".join(rest), state)  # type: ignore[arg-type]
    if head == "docs":
        if not rest:
            return Usage("DOCS_NEEDS_WORDS")
        return Lookup("docs", " ".join(rest))
    return Usage("UNKNOWN_SUBCOMMAND", words[0][:40])


class Lookups:
    """Runs lookups against one data folder's corpus with the model's tool registry."""

    def __init__(
        self,
        data_dir: Path,
        home: Path | None = None,
        semantic: bool = False,
        repos: Mapping[str, Path] | None = None,
        channel_repo: Callable[[str | None], str | None] | None = None,
    ) -> None:
        self.data_dir, self.home = data_dir, home  # home: where derived files of a folder Atlas did not make live
        self.semantic = semantic  # docs lookups rank by meaning too; the model loads on the first one, not here
        self.repos = dict(repos or {})  # several repositories: each one's data folder (issue 38)
        self.channel_repo = channel_repo or (lambda channel: None)
        self._registry: Any = None

    @classmethod
    def open(
        cls,
        data_dir: Path,
        home: Path | None = None,
        semantic: bool = False,
        repos: Mapping[str, Path] | None = None,
        channel_repo: Callable[[str | None], str | None] | None = None,
    ) -> Lookups:
        """Load the tools and the corpus now, so the first command is as fast as the rest."""
        lookups = cls(data_dir, home, semantic, repos, channel_repo)
        lookups._warm()
        return lookups

    @classmethod
    def for_settings(cls, settings: Any) -> Lookups:
        """The lookups of every repository the settings serve (one data folder for one repository or the demo)."""
        repos = {r: settings.for_repo(r).data_dir for r in settings.repos} if settings.org.many else None
        return cls.open(settings.data_dir, settings.home, settings.semantic_docs, repos, settings.org.repo_for_channel)

    def _warm(self) -> None:
        """What every lookup needs, loaded before the first: a command's lookup runs inside its ack, which Bolt
        waits 3 s for, and the tokenizer's ranks (the results' cut) take 0.3 s to seconds on a loaded machine."""
        from atlas import tokens
        from tools import open_corpus, v2_registry

        self._registry = v2_registry()
        if self.repos:
            from tools.repo_scope import scoped

            self._registry = scoped(self._registry, tuple(self.repos))
        open_corpus(self.data_dir, self.home, self.semantic)
        tokens.encoding()

    def run(self, lookup: Lookup, channel: str | None = None) -> Result:
        """Dispatch the matching tool call (in `channel`'s repository when it has one); tool errors come back as
        text with ok=False."""
        from tools import open_corpus
        from tools.context import ToolContext
        from tools.dispatch import dispatch
        from tools.repo_scope import RepoScope

        if self._registry is None:
            self._warm()
        name, args = _call(lookup)
        scope = None
        if self.repos:
            args["repo"] = lookup.repo

            def open_repo(repo: str) -> tuple[Any, None]:
                return open_corpus(self.repos[repo], self.home, self.semantic), None

            scope = RepoScope(tuple(self.repos), self.channel_repo(channel), open_repo)
        ctx = ToolContext(corpus=open_corpus(self.data_dir, self.home, self.semantic), scope=scope)
        output = dispatch(self._registry, name, json.dumps(args), ctx)
        repo = (scope.name(lookup.repo) if lookup.repo else scope.repo) if scope is not None else None
        return Result(lookup, output.text, output.ok, repo)


def issues_url(settings: Any, result: Result) -> str | None:
    """The URL template that links a lookup's `#42`s: its repository's; None when it looked in several (each
    result names its own, `owner/b#42`, and is left unlinked rather than linked to the wrong repository)."""
    if not settings.org.many:
        return str(settings.issues_base_url) if settings.issues_base_url else None
    return settings.for_repo(result.repo).issues_base_url if result.repo else None


def _call(lookup: Lookup) -> tuple[str, dict[str, Any]]:
    if lookup.kind == "issue":
        return "get_issue", {"issue_id": int(lookup.arg), "include": ["body", "labels"]}
    if lookup.kind == "search":
        return "search_issues", {"query": lookup.arg, "state": lookup.state, "limit": SEARCH_LIMIT, "detail": "concise"}
    if lookup.kind == "docs":
        return "search_docs", {"query": lookup.arg, "k": DOCS_K}
    raise ValueError(f"no tool for {lookup.kind}")
