"""The one line a docs hit shows: the prose line of its section that holds the most of the question's words."""

from __future__ import annotations

from tools.docsearch.markup import FENCE
from tools.docsearch.terms import tokens

SNIPPET_CHARS = 160


def snippet(text: str, wanted: list[str]) -> str:
    """The prose line of `text` that holds the most query tokens, as one short line of plain text (never a
    line of code: `import httpx` says nothing about a section)."""
    best, best_hits = "", -1
    for line in prose_lines(text):
        clean = " ".join(line.replace("**", "").replace("`", "").strip("#>|- ").split())
        if not clean:
            continue
        hits = len(set(tokens(clean)) & set(wanted))
        if hits > best_hits:
            best, best_hits = clean, hits
    return best if len(best) <= SNIPPET_CHARS else best[: SNIPPET_CHARS - 3].rstrip() + "..."


def prose_lines(text: str) -> list[str]:
    """The lines of `text` outside code fences and console examples (`>>> `, `$ `)."""
    out, in_fence = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and not line.lstrip().startswith((">>> ", "$ ", "... ")):
            out.append(line)
    return out
