"""Which of a repository's labels a triage may suggest, and how the two naming schemes meet.

Labels fall in three kinds by name alone (no list per repository):
- **decision** labels record what maintainers decided about the issue (`duplicate`, `R: duplicate`,
  `invalid`, `wontfix`): they are scored with the duplicates or not at all, never suggested;
- **status** labels record where the work stands (`S: needs repro`, `confirmed`, `help wanted`,
  `good first issue`): set by maintainers later, never suggested at opening time;
- **topic** labels (type, component, feature, and version): the ones suggested.
A prefixed scheme (`T: bug`, `kind/bug`, `area/solver`) and an older unprefixed one (`Bug`) name one
*family* by the part after the prefix, lowercased, so one label under two names (a rename) is one
label; a family is suggested under the name the repository used most recently (as of the replayed
issue), so a repository that moved to `kind/bug` is not offered `Bug` any more. Status and decision
labels are recognised in any scheme: by their prefix (`S:`, `status/`, `resolution/`, `triage/`) or
by their words (`wontfix`, `needs-repro`, `waiting on response`, `good first issue`, ...).
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["decision", "status", "version", "topic"]

DECISION_PREFIXES = ("r", "resolution", "closed", "close", "closing")
STATUS_PREFIXES = ("s", "status", "state", "p", "priority", "triage", "lifecycle", "needs", "stage", "workflow")
DECISION_WORDS = frozenset(
    {
        "duplicate",
        "dupe",
        "invalid",
        "wontfix",
        "won't fix",
        "wont fix",
        "not a bug",
        "rejected",
        "spam",
        "stale",
        "works as intended",
        "as designed",
        "not planned",
        "fixed",
        "resolved",
        "cannot reproduce",
        "can't reproduce",
        "works for me",
        "answered",
        "expected behavior",
        "expected behaviour",
        "external issue",
        "not our bug",
        "out of scope",
        "obsolete",
        "superseded",
    }
)
STATUS_WORDS = frozenset(
    {
        "confirmed",
        "accepted",
        "needs-repro",
        "needs repro",
        "needs-info",
        "needs info",
        "needs discussion",
        "needs-triage",
        "needs triage",
        "triage",
        "awaiting response",
        "waiting for response",
        "help wanted",
        "good first issue",
        "in progress",
        "blocked",
        "regression",
        "hacktoberfest",
        "pinned",
        "release blocker",
        "untriaged",
        "unconfirmed",
        "on hold",
        "wip",
        "work in progress",
        "needs reproduction",
        "good second issue",
        "easy",
        "first timers only",
        "up for grabs",
        "in review",
        "stale",
    }
)
STATUS_OPENINGS = ("needs ", "need ", "waiting ", "awaiting ", "pending ", "blocked ", "help ")
DUPLICATE_WORDS = frozenset({"duplicate", "dupe"})
VERSION = re.compile(r"^(?:v|version|ver|release|affects)\s*[:/ ]?\s*v?(\d+(?:\.\d+)+)$", re.IGNORECASE)
PREFIXED = re.compile(r"^\s*([A-Za-z][\w-]*)\s*:\s*(.+?)\s*$")
SLASHED = re.compile(r"^\s*([A-Za-z][\w.-]*)/(\S.*?)\s*$")  # `kind/bug`, `area/solver`: no space before the slash


def split(name: str) -> tuple[str, str]:
    """(prefix, value), lowercased: 'T: bug' -> ('t', 'bug'), 'comp:cli' -> ('comp', 'cli'),
    'kind/bug' -> ('kind', 'bug'), 'Bug' -> ('', 'bug')."""
    match = PREFIXED.match(name) or SLASHED.match(name)
    if match:
        return match.group(1).lower(), match.group(2).lower()
    return "", name.strip().lower()


def _words(value: str) -> str:
    """'needs-repro', 'waiting_on_response' -> 'needs repro', 'waiting on response': one spelling for the lists."""
    return " ".join(re.split(r"[-_\s]+", value)).strip()


def kind(name: str) -> Kind:
    """What a label records, judged from its name."""
    if VERSION.match(name.strip()):
        return "version"
    prefix, raw = split(name)
    value = _words(raw)
    if prefix in DECISION_PREFIXES or raw in DECISION_WORDS or value in DECISION_WORDS:
        return "decision"
    if (
        prefix in STATUS_PREFIXES
        or raw in STATUS_WORDS
        or value in STATUS_WORDS
        or (value + " ").startswith(STATUS_OPENINGS)
    ):
        return "status"
    return "topic"


def is_duplicate_label(name: str) -> bool:
    """`duplicate`, `R: duplicate`: the maintainers' duplicate decision, scored with the duplicates."""
    return _words(split(name)[1]) in DUPLICATE_WORDS


def family(name: str) -> str:
    """One name for a label across the repository's schemes: the value after any type/area prefix."""
    return split(name)[1]


def version_of(name: str) -> str | None:
    """'version:2.5.1' -> '2.5.1'; None for a label that names no version."""
    match = VERSION.match(name.strip())
    return match.group(1) if match else None


def suggestable(name: str) -> bool:
    """Topic labels only: decisions and statuses are the maintainers' to set later."""
    return kind(name) == "topic"
