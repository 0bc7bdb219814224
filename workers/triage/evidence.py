"""Why two issues look like one problem: the lines they share (title, error, traceback) and the words.

An issue's *signature lines* are its title and the lines that carry an error: a traceback's last
line, an exception name, an error code, a message in code. Evidence is the best-matching pair of
those lines between the new issue and the candidate, by the idf-weighted share of words they have
in common, plus the rarest words the two issues share. The evidence quotes the *candidate's* lines
next to the new issue's, cut short and on one line each, so a card can show it verbatim.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from tools.docsearch.index import tokens

ERRORISH = re.compile(r"Error\b|Exception\b|Traceback|\berror\b|\bfailed\b|\bfails?\b|\bcrash|ORB-\d+|INTERNAL ERROR"
                      r"|\bcannot\b|\bcan't\b|\bwarning\b", re.IGNORECASE)
LINE_CHARS = 120
SHARED_WORDS = 5


def signature_lines(title: str, body: str) -> list[str]:
    """The title, then each error-bearing line of the body (traceback frames left out), in order."""
    lines = [title.strip()] if title.strip() else []
    for raw in body.splitlines():
        line = raw.strip().strip("`>").strip()
        if not line or line.startswith(("File \"", "at ", "...")) or not ERRORISH.search(line):
            continue
        lines.append(line)
    return list(dict.fromkeys(lines))[:40]


def explain(new: tuple[str, str], old: tuple[str, str], weight: Callable[[str], float]) -> str:
    """One line of evidence: the best pair of signature lines and the rarest shared words."""
    best: tuple[float, str, str] = (0.0, "", "")
    old_lines = [(line, set(tokens(line))) for line in signature_lines(*old)]
    for line in signature_lines(*new):
        mine = set(tokens(line))
        if not mine:
            continue
        for theirs, words in old_lines:
            shared = mine & words
            total = sum(weight(t) for t in mine | words) or 1.0
            score = sum(weight(t) for t in shared) / total
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
    mine: Counter[str] = Counter(tokens(" ".join(new)))
    theirs = set(tokens(" ".join(old)))
    common = [t for t in mine if t in theirs and not t.isdigit() and len(t) > 2]
    return sorted(common, key=lambda t: (-weight(t), t))[:SHARED_WORDS]


def _cut(line: str) -> str:
    line = " ".join(line.replace('"', "'").split())
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 3].rstrip() + "..."
