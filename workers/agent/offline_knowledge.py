"""The offline model's way through the knowledge tools: code, pull requests, releases, discussions.

A question about where something is in the code searches the code and reads the best place; one about
a release, a pull request or a discussion searches the history and reads the best item; a question
naming an identifier (renew_lease, WorkerConfig.check) also searches the code beside the docs and
issues, and reads the file that defines it. The answer quotes the lines that match the question and
cites the permalink or URL outside the quote (workers/agent/sources.py cites only there).
Anything else is left to the offline model's docs-and-issues path (`None`).
"""

from __future__ import annotations

import re
from typing import Any

from workers import wording as phrases
from workers.agent.offline_evidence import Question, keywords
from workers.wording import OFFLINE_NOTE

Call = tuple[str, dict[str, Any]]
_HISTORY = re.compile(
    r"\b(releases?|released|shipped|changelog|pull requests?|PRs?|merged|discussions?|discussed)\b|\bfixed in\b", re.I
)
_KINDS = (
    ("release", re.compile(r"\b(release[sd]?|shipped|changelog|version)\b", re.I)),
    ("pull_request", re.compile(r"\b(pull requests?|PRs?|merged)\b", re.I)),
    ("discussion", re.compile(r"\b(discussions?|discussed)\b", re.I)),
)
_CODE = re.compile(
    r"\bwhere\s+(is|are|does|do)\b|\bwhich\s+(file|function|class|module)\b|\bin the (code|source)\b"
    r"|\b(defined|implemented|source code)\b",
    re.I,
)
_DOCS = re.compile(r"\b(documented|docs|documentation|configured|config)\b", re.I)
_IDENTIFIER = re.compile(r"\b[A-Za-z]\w*(?:_\w+|[a-z][A-Z]\w*|\.[A-Za-z_]\w*)\b")
_CODE_HIT = re.compile(r"^- (\S+) L(\d+)-L(\d+)(?: defines ([^ ]+(?:, [^ ]+)*))? (\S+)$")
_HISTORY_HIT = re.compile(r"^- (PR|release|discussion) #?(\S+) \[")
_KIND_OF = {"PR": "pull_request", "release": "release", "discussion": "discussion"}
_NUMBERED = re.compile(r"^(\d+): ?(.*)$")
_HISTORY_WORDS = frozenset(
    (
        "release releases released shipped changelog pull request requests pr prs merged discussion discussions "
        "discussed fixed fix version which"
    ).split()
)


def reply(question: str, done: dict[str, str], may_call: bool) -> list[Call] | str | None:
    """The next calls, the answer, or None when this is not a knowledge question (or found nothing to read)."""
    if "read_file" in done:
        return _code_answer(question, done["read_file"])
    if "get_history_item" in done:
        return _history_answer(question, done["get_history_item"])
    if not may_call:
        return None
    if not done:
        return _first_calls(question)
    if "search_history" in done and "search_docs" not in done:  # beside the docs: the solved threads (offline_solved)
        best = _best_history(done["search_history"], question)
        return [("get_history_item", {"kind": best[0], "id": best[1]})] if best else None
    if "search_code" in done:
        hit = _best_code(done["search_code"], question, defined_only="search_docs" in done)
        return [("read_file", {"path": hit[0], "start": hit[1], "end": hit[2]})] if hit else None
    return None


def _first_calls(question: str) -> list[Call] | None:
    words = keywords(question)
    if _HISTORY.search(question):
        kind = next((k for k, pattern in _KINDS if pattern.search(question)), None)
        query = " ".join(w for w in words if w.lower() not in _HISTORY_WORDS) or " ".join(words) or question
        return [("search_history", {"query": query, "kind": kind, "limit": 5})]
    if _CODE.search(question) and not _DOCS.search(question):
        return [("search_code", {"query": " ".join(words) or question, "path_prefix": None, "limit": 5})]
    names = _IDENTIFIER.findall(question)
    if names:  # the docs and issues as always, and the code that may define the name
        query = " ".join(words) or question
        return [
            ("search_docs", {"query": query, "k": 3}),
            ("search_issues", {"query": query, "state": None, "limit": 5, "detail": "concise"}),
            ("search_code", {"query": " ".join(names), "path_prefix": None, "limit": 3}),
        ]
    return None


def _best_code(output: str, question: str, defined_only: bool) -> tuple[str, int, int] | None:
    """The first hit (search order), or with `defined_only` the first that defines a name of the question."""
    names = {n.rsplit(".", 1)[-1].lower() for n in _IDENTIFIER.findall(question)}
    for line in output.splitlines():
        found = _CODE_HIT.match(line)
        if not found:
            continue
        defines = {d.rsplit(".", 1)[-1].lower() for d in (found.group(4) or "").split(", ") if d}
        if not defined_only or names & defines:
            return found.group(1), int(found.group(2)), int(found.group(3))
    return None


def _best_history(output: str, question: str) -> tuple[str, str] | None:
    """Of the hits, the one whose lines share most words with the question; ties keep the search's order."""
    asked = Question.of(question)
    blocks: list[tuple[str, str, str]] = []
    for line in output.splitlines():
        found = _HISTORY_HIT.match(line)
        if found:
            blocks.append((_KIND_OF[found.group(1)], found.group(2), line))
        elif blocks and line.startswith("  "):
            kind, ident, text = blocks[-1]
            blocks[-1] = (kind, ident, text + "\n" + line)
    if not blocks:
        return None
    scored = [(-len(asked.found_in(text)), i) for i, (_, _, text) in enumerate(blocks)]
    kind, ident, _ = blocks[min(scored)[1]]
    return kind, ident


def _code_answer(question: str, output: str) -> str | None:
    head, _, body = output.partition("\n")
    found = re.match(r"^(\S+) lines (\d+)-(\d+).* (\S+)$", head)
    if output.startswith("Error") or not found:
        return None
    numbered = [m for m in map(_NUMBERED.match, body.splitlines()) if m]
    words = {w.lower() for w in keywords(question)}
    best = set(map(id, _best(numbered, lambda m: m.group(2), words, 5)))
    picked = [m for i, m in enumerate(numbered) if i < 3 or id(m) in best][
        :8
    ]  # the definition's head, then what matches
    quote = "\n".join(f"> `{m.group(1)}: {m.group(2).rstrip()}`" for m in picked)
    intro = phrases.OFFLINE_FROM_CODE.format(
        path=found.group(1), start=found.group(2), end=found.group(3), link=found.group(4)
    )
    return f"{intro}\n{quote}\n\n{OFFLINE_NOTE}"


def _history_answer(question: str, output: str) -> str | None:
    if output.startswith("Error"):
        return None
    head, _, body = output.partition("\n")
    link = head.rsplit(" ", 1)[-1]
    what = head.split(" [", 1)[0]
    lines: list[str] = []
    for ln in body.splitlines():
        if lines and ln[:1].isspace() and ln.strip() and lines[-1].lstrip().startswith(("- ", "* ")):
            lines[-1] += " " + ln.strip()  # a wrapped list item is one line again
        elif ln.strip() and not ln.startswith(("#", "[")):
            lines.append(ln)
    words = {w.lower() for w in keywords(question)}
    picked = _best(lines, lambda ln: ln, words, 5)
    quote = "\n".join(f"> {ln.strip()}" for ln in picked)
    return f"{phrases.OFFLINE_FROM_HISTORY.format(what=what, link=link)}\n{quote}\n\n{OFFLINE_NOTE}"


def _best(items: list[Any], text: Any, words: set[str], most: int) -> list[Any]:
    """The items sharing most words with the question, in their original order (the first ones when none does)."""
    scored = [(sum(w in text(item).lower() for w in words), i) for i, item in enumerate(items)]
    best = sorted(i for score, i in sorted(scored, key=lambda p: (-p[0], p[1]))[:most] if score > 0)
    return [items[i] for i in best] or items[:most]
