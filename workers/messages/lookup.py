"""A slash-command lookup's reply as a value: what was looked up, what the tool said, and the help text's cause.

The web process parses and runs the lookup (bot/lookups.py); each platform renders the reply from this value
(bot/slack/views/lookup.py, bot/discord/views/lookup.py) and posts it. Text fields are plain, possibly untrusted
text (the tool's output quotes issues): the renderer escapes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["issue", "search", "docs", "help"]
# What was wrong with a command's text: each is a sentence of workers/messages/wording.py (LOOKUP_PROBLEM).
Problem = Literal["TOO_LONG", "ISSUE_NEEDS_NUMBER", "SEARCH_NEEDS_WORDS", "DOCS_NEEDS_WORDS", "UNKNOWN_SUBCOMMAND"]


@dataclass(frozen=True)
class Lookup:
    """A parsed command: what to look up. `text` is its normal form, replayed by the share button."""

    kind: Kind
    arg: str = ""
    state: Literal["open", "closed"] | None = None
    repo: str | None = None  # `issue owner/b#42`: the repository named (as typed)

    @property
    def text(self) -> str:
        arg = f"{self.repo}#{self.arg}" if self.repo else self.arg
        return " ".join(part for part in (self.kind, arg, self.state or "") if part)


@dataclass(frozen=True)
class Usage:
    """Bad input: what was wrong (and the word it was about), answered with the usage text."""

    problem: Problem | None = None
    word: str = ""  # UNKNOWN_SUBCOMMAND: the word typed, as typed


@dataclass(frozen=True)
class Result:
    """What a lookup found: the tool's text, and whether the tool succeeded."""

    lookup: Lookup
    text: str
    ok: bool
    repo: str | None = None  # the one repository it looked in (several served); None: every one, or the only one

    @property
    def said(self) -> str:
        """The text to show: a failed tool's hint is for the model, not the person."""
        return self.text if self.ok else self.text.split("\nHint:")[0]


@dataclass(frozen=True)
class Found:
    """A lookup's reply. `command` is the command as the platform names it; a Share button when `shareable` (and
    the tool succeeded); `shared_by` (a platform user id) once someone shared it in the channel."""

    result: Result
    command: str
    shareable: bool = False
    shared_by: str | None = None
    issues_base_url: str | None = None  # the tracker's issue pages: issue numbers become links where it is set


@dataclass(frozen=True)
class Help:
    """The usage text of `command`, after what was wrong with the input when something was."""

    command: str
    usage: Usage | None = None


@dataclass(frozen=True)
class LookupFailed:
    """The lookup broke on Atlas's side: a short note, never the trace."""


LookupReply = Found | Help | LookupFailed
