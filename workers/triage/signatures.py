"""What in a report identifies one problem, beyond its words: evidence for and against a duplicate (issue 36).

- **error signatures**: an exception type with its message (`KeyError: 'lease_id'`), with paths, numbers,
  hex addresses and quoted values normalised, so two reports of one error on two machines match;
- **traceback frames**: the `file.py:function` of each `File "...", line N, in function` line (the
  directory and line number dropped: they differ between installs and versions);
- **code identifiers**: dotted names, snake_case and CamelCase words, and names in backticks;
- **explicit references**: "same as #N", "duplicate of #N", "reopening #N", "see #N", a link to an
  issue of the tracker: the reporter naming the original.

Issue text is data: a reference is evidence for one candidate's score, never an action, and it counts
only for an earlier issue (the caller's candidates are earlier issues only).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

ERROR = re.compile(
    r"\b((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Fault))\b(?::[ \t]*([^\n]{0,160}))?"
)
FRAME = re.compile(r"File \"([^\"]+)\", line \d+, in ([\w<>.]+)")
IDENTIFIER = re.compile(
    r"`([A-Za-z_][\w.]{2,60})`|\b([a-z_][a-z0-9]*(?:_[a-z0-9]+)+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
    r"|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)\b"
)
REFERENCE = re.compile(
    r"\b(?:same (?:issue |problem |bug )?as|duplicate of|dupe of|dup of|reopen(?:ing|s)?|re-open(?:ing)?"
    r"|follow[- ]up (?:to|of)|see also|see|related to|like in|as in|similar to|continuation of)"
    r"\s*(?:issue\s*)?(?:#|GH-|https?://github\.com/[\w.-]+/[\w.-]+/issues/)(\d+)",
    re.IGNORECASE,
)
LINK = re.compile(r"https?://github\.com/[\w.-]+/[\w.-]+/issues/(\d+)")
PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.@~+-]+){2,}|[\w.-]+\.(?:py|pyi|js|ts|toml|cfg|ini|json|ya?ml|lock|txt)\b")
HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
NUMBER = re.compile(r"\b\d+(?:\.\d+)*\b")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
# The generic errors nearly every tracker has many of: they say little about which earlier report is the same.
COMMON = frozenset(
    {
        "Error",
        "Exception",
        "RuntimeError",
        "ValueError",
        "TypeError",
        "AssertionError",
        "Warning",
        "DeprecationWarning",
        "UserWarning",
        "SystemExit",
        "KeyboardInterrupt",
        "OSError",
        "IOError",
    }
)
STRONG_REFERENCE = re.compile(r"same|dup|reopen|re-open|continuation|follow", re.IGNORECASE)


@dataclass(frozen=True)
class Signature:
    """One report's identifying marks."""

    errors: frozenset[str]  # "KeyError: '<v>'": type and normalised message
    types: frozenset[str]  # the exception types alone
    frames: frozenset[str]  # "worker.py:start"
    identifiers: frozenset[str]
    references: frozenset[int]  # issues it says it is the same as, or reopens
    mentions: frozenset[int]  # issues it links or "see"s: weaker


def normalised(message: str) -> str:
    """An error's message with what differs between machines replaced: paths, addresses, numbers, quoted values."""
    text = PATH.sub("<path>", message)
    text = HEX.sub("<addr>", text)
    text = QUOTED.sub("<v>", text)
    text = NUMBER.sub("<n>", text)
    return " ".join(text.split())[:120].lower()


def of(title: str, body: str) -> Signature:
    """The marks of one report (title and opening post only)."""
    text = f"{title}\n{body}"
    errors: set[str] = set()
    types: set[str] = set()
    for match in ERROR.finditer(text):
        kind = match.group(1).rsplit(".", 1)[-1]
        types.add(kind)
        if match.group(2) and match.group(2).strip():
            errors.add(f"{kind}: {normalised(match.group(2))}")
    frames = {f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{func}" for path, func in FRAME.findall(text)}
    identifiers = {a or b for a, b in IDENTIFIER.findall(text)}
    strong: set[int] = set()
    weak: set[int] = set()
    for match in REFERENCE.finditer(text):
        (strong if STRONG_REFERENCE.search(match.group(0)) else weak).add(int(match.group(1)))
    weak |= {int(n) for n in LINK.findall(text)}
    return Signature(
        frozenset(errors),
        frozenset(types),
        frozenset(frames),
        frozenset(i for i in identifiers if len(i) > 3),
        frozenset(strong),
        frozenset(weak - strong),
    )


def of_records(rows: Sequence[tuple[str, str]]) -> list[Signature]:
    """The marks of each (title, body), by seq: computed once per history, and for the issues it grows by."""
    return [of(title, body) for title, body in rows]


@dataclass(frozen=True)
class Weighed:
    """Evidence about one candidate: the score's change and the reasons, for and against."""

    delta: float
    reasons: tuple[str, ...]


SAME_ERROR = 0.10  # the same error type and normalised message
OTHER_ERROR = -0.08  # both show an error, and no error type in common
SAME_FRAMES = 0.06  # a traceback frame in common, with the same error
OTHER_FRAMES = -0.05  # both show a traceback, no frame in common
SAME_IDENTIFIERS = 0.02  # per shared code identifier, up to three
NAMED = 0.45  # the new report says it is the same as (or reopens) this issue
LINKED = 0.12  # the new report links or "see"s this issue


def weigh(mine: Signature, theirs: Signature, their_id: int) -> Weighed:
    """How the marks of a new report and of one earlier issue move that issue's duplicate score."""
    delta, reasons = 0.0, []
    if their_id in mine.references:
        delta += NAMED
        reasons.append(f"the report names #{their_id} as the same")
    elif their_id in mine.mentions:
        delta += LINKED
        reasons.append(f"the report links #{their_id}")
    same_errors = mine.errors & theirs.errors
    same_types = (mine.types & theirs.types) - COMMON
    if same_errors:
        delta += SAME_ERROR
        reasons.append("same error: " + sorted(same_errors)[0])
    elif mine.types and theirs.types and not mine.types & theirs.types:
        delta += OTHER_ERROR
        reasons.append(f"different errors ({sorted(mine.types)[0]} vs {sorted(theirs.types)[0]})")
    elif same_types:
        delta += SAME_ERROR / 2
    if mine.frames & theirs.frames:
        if same_errors or same_types:  # alone, a frame says little: one loader fails for every bad setting
            delta += SAME_FRAMES
            reasons.append("same traceback frame: " + sorted(mine.frames & theirs.frames)[0])
    elif mine.frames and theirs.frames:
        delta += OTHER_FRAMES
        reasons.append("different traceback frames")
    shared = sorted(mine.identifiers & theirs.identifiers)
    if shared:
        delta += SAME_IDENTIFIERS * min(3, len(shared))
    return Weighed(round(delta, 4), tuple(reasons))
