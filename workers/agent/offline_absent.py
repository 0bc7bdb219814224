"""What the offline answer says it found nothing about: only words no doc has and no issue has.

search_docs names the words no doc has (its "No doc mentions" and "Weak match" notes, over every doc). A
search of the issues shows titles only, so a word missing from the titles shown may still be in some issue's
body or comments ("rest" of "encrypt job arguments at rest" is in one of RQ's): before the answer names a word,
each is looked up in the issues by itself (search_issues matches titles, labels, bodies and comments), and a
word some issue has is not named.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tools.docs_tools import UNCOVERED
from workers import wording as phrases
from workers.agent.offline_evidence import Question, listing

_UNKNOWN = re.compile(r"^\(No doc mentions: (.+?)\. If those words", re.M)
_UNCOVERED = re.compile(
    "^" + re.escape(UNCOVERED.split("{")[0]) + r"(.+?), and no section", re.M
)  # search's calibrated "not covered"
_ISSUE = re.compile(r"(?:issue\s*#?|#)(\d{1,6})\b", re.IGNORECASE)
_FOUND = re.compile(r'^Issues matching "(.+)", best first:')  # search_issues' first line when it found some
_QUERY = re.compile(r'^(?:Issues matching|No issues match) "(.+?)"')  # ... or when it found none
MAX_CHECKS = 8  # search_docs names at most 8 words


def in_no_doc(results: list[tuple[str, str]]) -> list[str]:
    """The names search_docs said no doc mentions, or the words it said no doc has when it judged that the
    docs do not cover the question."""
    for name, output in results:
        found = (_UNKNOWN.search(output) or _UNCOVERED.search(output)) if name == "search_docs" else None
        if found:
            return [w.strip() for w in found.group(1).split(",") if w.strip()]
    return []


def absent(asked: Question, results: list[tuple[str, str]], seen: list[str]) -> list[str]:
    """The words no doc has and none of the results `seen` shows."""
    return [w for w in in_no_doc(results) if w in asked.absent_from(seen)]


def split(results: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The results without the issue searches that looked up one word search_docs named, and those searches."""
    words = set(in_no_doc(results))
    looked_up = [
        (name, out)
        for name, out in results
        if name == "search_issues" and (m := _QUERY.match(out)) and m.group(1) in words
    ]
    return [r for r in results if r not in looked_up], looked_up


def checks(words: list[str], calls: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The issue searches still to make, one per word not yet looked up (`calls`: this turn's function calls)."""
    asked = {json.loads(c.get("arguments") or "{}").get("query") for c in calls if c.get("name") == "search_issues"}
    return [
        ("search_issues", {"query": w, "state": None, "limit": 1, "detail": "concise"})
        for w in words[:MAX_CHECKS]
        if w not in asked
    ]


def in_issues(results: list[tuple[str, str]]) -> set[str]:
    """The queries of the issue searches that found something: a word looked up by itself is in some issue."""
    return {m.group(1) for name, out in results if name == "search_issues" and (m := _FOUND.match(out))}


def nothing_about(question: str, words: list[str], results: list[tuple[str, str]]) -> str:
    """'I found nothing about X in the docs or issues', X being only the `words` no issue has either; with no
    such word, that nothing was found, naming none."""
    issue = _ISSUE.search(question)
    if issue:
        return phrases.OFFLINE_NOTHING_ABOUT.format(what=f"#{issue.group(1)}")
    named = [w for w in words if w not in in_issues(results)]
    return phrases.OFFLINE_NOTHING_ABOUT.format(what=listing(named)) if named else phrases.OFFLINE_NOTHING_FOUND
