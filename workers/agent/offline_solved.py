"""The offline model's use of solved threads (issue 39 item 4): the entries maintainers approved answer questions
worded like any other, so when any is kept every docs question also searches them (search_history), and none kept
costs no search.

An entry leads the answer only when it matches the question clearly better than the docs' best section, on the
scale the docs' answer already says how sure it is with (offline_docs.answer): 2 when the text has every identifier
and more than half the question's words ("likely answers it"), 1 when it has every identifier and some words ("not
sure"), 0 when it shares none ("closest in meaning"); -1 when no section could be quoted. An entry needs every
identifier and one word to be shown at all; one that does not lead is named as "see also". Cited as a solved thread,
by its permalink (outside the quote: workers/agent/sources.py cites only there).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.solved_threads import CITED_AS
from workers import wording as phrases
from workers.agent.offline_evidence import Question, keywords, subject

_HEAD = re.compile(rf"^- {re.escape(CITED_AS)} (K[0-9a-f]+): (.*?)(?: (https?://\S+))?$")
_ANSWER = re.compile(r"^  answer: (.*)$")
_LINKS = re.compile(r"^  links: (.*)$")
NONE = -1  # no section quoted
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Entry:
    """One approved entry as search_history showed it."""

    id: str
    question: str
    answer: str
    permalink: str
    links: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return f"{self.question}\n{self.answer}"

    @property
    def link(self) -> str:
        return self.permalink or self.id


def search(question: str) -> Call:
    """The search_history call added beside search_docs: the question's distinctive words, every kind."""
    words = " ".join(keywords(subject(question))) or " ".join(question.split())[:300]
    return "search_history", {"query": words, "kind": None, "limit": 3}


def with_search(question: str, calls: list[Call], kept: Callable[[], bool]) -> list[Call]:
    """`calls`, and the search of the solved threads when they search the docs and some entry is `kept` (asked only
    then: a question the docs are not searched for costs nothing more)."""
    docs = any(name == "search_docs" for name, _ in calls) and all(name != "search_history" for name, _ in calls)
    return [*calls, search(question)] if docs and kept() else calls


def found(asked: Question, results: list[tuple[str, str]]) -> list[Entry]:
    """The entries search_history showed that name every identifier of the question and share a word with it."""
    out: list[Entry] = []
    for name, output in results:
        if name != "search_history" or output.startswith("Error"):
            continue
        for line in output.splitlines():
            if head := _HEAD.match(line):
                out.append(Entry(head.group(1), head.group(2).strip(), "", head.group(3) or ""))
            elif out and (said := _ANSWER.match(line)):
                out[-1] = Entry(out[-1].id, out[-1].question, said.group(1).strip(), out[-1].permalink)
            elif out and (links := _LINKS.match(line)):
                last = out[-1]
                out[-1] = Entry(last.id, last.question, last.answer, last.permalink, tuple(links.group(1).split()))
    return [e for e in out if asked.touched_by(e.text)]


def level(asked: Question, text: str | None) -> int:
    """How well `text` matches the question on the docs answer's scale (None: nothing quoted)."""
    if text is None:
        return NONE
    if not asked.names_all(text):
        return NONE
    if asked.answered_by(text):
        return 2
    return 1 if asked.found_in(text) else 0


def lead(asked: Question, entries: list[Entry], docs: str | None) -> Entry | None:
    """The entry that matches the question best (search's order on a tie) if it matches clearly better than the
    docs' best section (`docs`: its text; None: no section could be quoted)."""
    if not entries:
        return None
    best = max(entries, key=lambda e: level(asked, e.text))
    return best if level(asked, best.text) > level(asked, docs) else None


def quoted(entry: Entry) -> str:
    """The entry as the answer's lead: where it is from, its question and answer quoted, its links."""
    lines = [
        phrases.OFFLINE_FROM_SOLVED.format(what=CITED_AS, link=entry.link),
        f"> {entry.question}",
        f"> {entry.answer}" if entry.answer else "",
        phrases.OFFLINE_SOLVED_LINKS.format(links=" ".join(entry.links)) if entry.links else "",
    ]
    return "\n".join(ln for ln in lines if ln)


def see_also(entries: list[Entry]) -> str:
    """The entries that did not lead, named with their permalinks."""
    named = "; ".join(f"{CITED_AS}, “{e.question}” ({e.link})" for e in entries)
    return phrases.OFFLINE_SEE_ALSO.format(where=named)
