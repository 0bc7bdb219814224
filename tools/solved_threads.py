"""Solved threads as a source of search_history: the entries maintainers approved (workers/knowledge/entries.py
keeps them in Redis), reached through the tool context, so the tools layer never opens Redis itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

CITED_AS = "a solved thread"


@dataclass(frozen=True)
class SolvedThread:
    """One approved entry: the question in plain words, the answer, its links, the thread's permalink."""

    id: str
    question: str
    answer: str
    links: tuple[str, ...]
    permalink: str
    approved_at: float


class SolvedThreads(Protocol):
    """The approved entries, searchable by words."""

    def search(self, query: str, limit: int) -> list[SolvedThread]:
        """The entries that share most words with `query`, best first; none share a word: []."""
        ...


def lines(entry: SolvedThread, snippet_chars: int) -> list[str]:
    """How search_history lists one: cited as a solved thread, with its permalink, then the question and the answer."""
    answer = " ".join(entry.answer.split())
    answer = answer if len(answer) <= snippet_chars else answer[: snippet_chars - 3] + "..."
    head = f"- {CITED_AS} {entry.id}: {entry.question} {entry.permalink}".rstrip()
    links = f"\n  links: {' '.join(entry.links)}" if entry.links else ""
    return [head, f"  answer: {answer}{links}"]
