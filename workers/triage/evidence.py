"""Why two issues look like one problem: the lines they share (title, error, traceback) and the words.

An issue's *signature lines* are its title and the lines that carry an error: a traceback's last
line, an exception name, an error code, a message in code. Evidence is the best-matching pair of
those lines between the new issue and the candidate, by the idf-weighted share of words they have
in common, plus the rarest words the two issues share. The evidence quotes the *candidate's* lines
next to the new issue's, cut short and on one line each, so a card can show it verbatim.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable

from tools.docsearch.terms import tokens

ERRORISH = re.compile(
    r"Error\b|Exception\b|Traceback|\berror\b|\bfailed\b|\bfails?\b|\bcrash|ORB-\d+|INTERNAL ERROR"
    r"|\bcannot\b|\bcan't\b|\bwarning\b",
    re.IGNORECASE,
)
LINE_CHARS = 120
SHARED_WORDS = 5


def signature_lines(title: str, body: str) -> list[str]:
    """The title, then each error-bearing line of the body (traceback frames left out), in order."""
    lines = [title.strip()] if title.strip() else []
    for raw in body.splitlines():
        line = raw.strip().strip("`>").strip()
        if not line or line.startswith(('File "', "at ", "...")) or not ERRORISH.search(line):
            continue
        lines.append(line)
    return list(dict.fromkeys(lines))[:40]


@functools.lru_cache(maxsize=512)
def _signature_words(title: str, body: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each signature line and its words: a new issue is explained against up to three candidates, and a
    candidate recurs across a backtest's replays; stemming them again was a fifth of a triage's time."""
    return tuple((line, frozenset(tokens(line))) for line in signature_lines(title, body))


@functools.lru_cache(maxsize=512)
def _words(title: str, body: str) -> tuple[str, ...]:
    return tuple(tokens(f"{title} {body}"))


def explain(new: tuple[str, str], old: tuple[str, str], weight: Callable[[str], float]) -> str:
    """One line of evidence: the best pair of signature lines and the rarest shared words."""
    best: tuple[float, str, str] = (0.0, "", "")
    old_lines = _signature_words(*old)
    for line, mine in _signature_words(*new):
        if not mine:
            continue
        for theirs, words in old_lines:
            shared = mine & words
            # fsum: exactly rounded whatever the sets' order, which follows the process's hash seed; with `sum`
            # two equally good lines could swap from one run to the next
            total = math.fsum(weight(t) for t in mine | words) or 1.0
            score = math.fsum(weight(t) for t in shared) / total
            if score > best[0]:
                best = (score, line, theirs)
    shared_words = _shared_words(new, old, weight)
    parts = []
    if best[0] > 0:
        parts.append(f'"{_cut(best[1])}" ~ "{_cut(best[2])}"')
    if shared_words:
        parts.append("shared: " + ", ".join(shared_words))
    return "; ".join(parts)


def _shared_words(new: tuple[str, str], old: tuple[str, str], weight: Callable[[str], float]) -> list[str]:
    mine: Counter[str] = Counter(_words(*new))
    theirs = set(_words(*old))
    common = [t for t in mine if t in theirs and not t.isdigit() and len(t) > 2]
    return sorted(common, key=lambda t: (-weight(t), t))[:SHARED_WORDS]


def _cut(line: str) -> str:
    line = " ".join(line.replace('"', "'").split())
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 3].rstrip() + "..."
