"""Slash-command lookups: parse `issue <n>`, `search <words> [open|closed]`, `docs <words>`, `help`
and run them through the same tools the model uses (no model, no Redis: local and fast).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

# A lookup's title on every platform, by its kind.
TITLE = {"issue": "Issue #{arg}", "search": "Issues matching “{arg}”", "docs": "Docs matching “{arg}”"}

log = logging.getLogger("atlas.bot.lookups")

MAX_TEXT_CHARS = 300  # the command text; it is also the share button's value (Slack allows 2,000)
SEARCH_LIMIT = 10
DOCS_K = 5

Kind = Literal["issue", "search", "docs", "help"]


@dataclass(frozen=True)
class Lookup:
    """A parsed command: what to look up. `text` is its normal form, replayed by the share button."""

    kind: Kind
    arg: str = ""
    state: Literal["open", "closed"] | None = None

    @property
    def text(self) -> str:
        return " ".join(part for part in (self.kind, self.arg, self.state or "") if part)


@dataclass(frozen=True)
class Usage:
    """Bad input: the problem (a wording key and its values), answered with the usage text."""

    problem: str | None = None
    values: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Result:
    """What a lookup found: the tool's text, and whether the tool succeeded."""

    lookup: Lookup
    text: str
    ok: bool


def parse(text: str) -> Lookup | Usage:
    """`issue 42`, `issue #42`, `search redis timeout closed`, `docs lease_seconds`, `help` (or nothing)."""
    words = (text or "").split()
    if not words or words[0].lower() in ("help", "-h", "--help", "?"):
        return Lookup("help")
    if len(text) > MAX_TEXT_CHARS:
        return Usage("TOO_LONG")
    head, rest = words[0].lower(), words[1:]
    if head == "issue":
        number = rest[0].lstrip("#") if len(rest) == 1 else ""
        if not number.isdigit() or not 0 < int(number) < 10**9:
            return Usage("ISSUE_NEEDS_NUMBER")
        return Lookup("issue", str(int(number)))
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
    return Usage("UNKNOWN_SUBCOMMAND", (("word", words[0][:40]),))


class Lookups:
    """Runs lookups against one data folder's corpus with the model's tool registry."""

    def __init__(self, data_dir: Path, home: Path | None = None, semantic: bool = False) -> None:
        self.data_dir, self.home = data_dir, home  # home: where derived files of a folder Atlas did not make live
        self.semantic = semantic  # docs lookups rank by meaning too; the model loads on the first one, not here
        self._registry: Any = None

    @classmethod
    def open(cls, data_dir: Path, home: Path | None = None, semantic: bool = False) -> Lookups:
        """Load the tools and the corpus now, so the first command is as fast as the rest."""
        lookups = cls(data_dir, home, semantic)
        lookups._warm()
        return lookups

    def _warm(self) -> None:
        """What every lookup needs, loaded before the first: a command's lookup runs inside its ack, which Bolt
        waits 3 s for, and the tokenizer's ranks (the results' cut) take 0.3 s to seconds on a loaded machine."""
        from atlas import tokens
        from tools import open_corpus, v2_registry

        self._registry = v2_registry()
        open_corpus(self.data_dir, self.home, self.semantic)
        tokens.encoding()

    def run(self, lookup: Lookup) -> Result:
        """Dispatch the matching tool call; tool errors come back as text with ok=False."""
        from tools import open_corpus
        from tools.context import ToolContext
        from tools.dispatch import dispatch

        if self._registry is None:
            self._warm()
        name, args = _call(lookup)
        output = dispatch(
            self._registry,
            name,
            json.dumps(args),
            ToolContext(corpus=open_corpus(self.data_dir, self.home, self.semantic)),
        )
        return Result(lookup, output.text, output.ok)


def _call(lookup: Lookup) -> tuple[str, dict[str, Any]]:
    if lookup.kind == "issue":
        return "get_issue", {"issue_id": int(lookup.arg), "include": ["body", "labels"]}
    if lookup.kind == "search":
        return "search_issues", {"query": lookup.arg, "state": lookup.state, "limit": SEARCH_LIMIT, "detail": "concise"}
    if lookup.kind == "docs":
        return "search_docs", {"query": lookup.arg, "k": DOCS_K}
    raise ValueError(f"no tool for {lookup.kind}")
