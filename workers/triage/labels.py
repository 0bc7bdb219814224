"""Which of a repository's labels a triage may suggest, and how the two naming schemes meet.

Labels fall in three kinds by name alone (no list per repository):
- **decision** labels record what maintainers decided about the issue (`duplicate`, `R: duplicate`,
  `invalid`, `wontfix`): they are scored with the duplicates or not at all, never suggested;
- **status** labels record where the work stands (`S: needs repro`, `confirmed`, `help wanted`,
  `good first issue`): set by maintainers later, never suggested at opening time;
- **topic** labels (type, component, feature, and version): the ones suggested.
A prefixed scheme (`T: bug`) and an older unprefixed one (`bug`) name one *family* by the part after
the prefix; a family is suggested under the name the repository used most recently (as of the
replayed issue), so a repository that moved to `T: bug` is not offered `bug` any more.
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["decision", "status", "version", "topic"]

DECISION_PREFIXES = ("r", "resolution", "closed")
STATUS_PREFIXES = ("s", "status", "state", "p", "priority")
DECISION_WORDS = frozenset({"duplicate", "dupe", "invalid", "wontfix", "won't fix", "wont fix", "not a bug", "rejected",
                            "spam", "stale", "works as intended", "as designed", "not planned", "fixed", "resolved"})
STATUS_WORDS = frozenset({"confirmed", "accepted", "needs-repro", "needs repro", "needs-info", "needs info",
                          "needs discussion", "needs-triage", "needs triage", "triage", "awaiting response",
                          "waiting for response", "help wanted", "good first issue", "in progress", "blocked",
                          "regression", "hacktoberfest", "pinned", "release blocker"})
DUPLICATE_WORDS = frozenset({"duplicate", "dupe"})
VERSION = re.compile(r"^(?:v|version|ver|release|affects)\s*[:/ ]?\s*v?(\d+(?:\.\d+)+)$", re.IGNORECASE)
PREFIXED = re.compile(r"^\s*([A-Za-z][\w-]*)\s*:\s*(.+?)\s*$")


def split(name: str) -> tuple[str, str]:
    """(prefix, value), lowercased: 'T: bug' -> ('t', 'bug'), 'comp:cli' -> ('comp', 'cli'), 'bug' -> ('', 'bug')."""
    match = PREFIXED.match(name)
    if match:
        return match.group(1).lower(), match.group(2).lower()
    return "", name.strip().lower()


def kind(name: str) -> Kind:
    """What a label records, judged from its name."""
    if VERSION.match(name.strip()):
        return "version"
    prefix, value = split(name)
    if prefix in DECISION_PREFIXES or value in DECISION_WORDS:
        return "decision"
    if prefix in STATUS_PREFIXES or value in STATUS_WORDS:
        return "status"
    return "topic"


def is_duplicate_label(name: str) -> bool:
    """`duplicate`, `R: duplicate`: the maintainers' duplicate decision, scored with the duplicates."""
    return split(name)[1] in DUPLICATE_WORDS


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
