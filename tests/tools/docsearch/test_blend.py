"""The hybrid docs ranking (tools/docsearch/index.py `_blend`) and the offline answer's trust in it.

The similarity in meaning is given by a stand-in for the passage vectors (`scores`, as
tools/docsearch/semantic.py `SectionVectors` returns them), so these tests need no model."""

from __future__ import annotations

import numpy as np

from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import parse_page
from workers.agent.offline import compose
from workers.wording import OFFLINE_FROM_DOCS

PAGES = {
    p.doc_id: p
    for p in (
        parse_page("deps", "## Job dependencies\n\nPass `depends_on` to chain a job behind its parent.\n"),
        parse_page(
            "status", "## Job status\n\nA job is queued, started, deferred, finished or failed; a worker sets it.\n"
        ),
        parse_page(
            "other",
            "## Connections\n\nGive RQ a Redis connection. A client may wait until "
            "another request runs before it makes its own.\n",
        ),
        parse_page("more", "## Queues\n\nA queue holds work until a worker takes it.\n"),
    )
}


class Meaning:
    """Stands in for SectionVectors: each section's similarity to any question, fixed."""

    def __init__(self, similarity: list[float]) -> None:
        self.similarity = np.array(similarity, np.float32)

    def scores(self, query: str, words: dict[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        return self.similarity, self.similarity  # the cosine shown and what ranks: no passage words here


def test_a_weak_word_match_is_not_stretched_into_a_strong_one() -> None:
    index = DocsIndex(PAGES)
    index.vectors = Meaning([0.9, 0.85, 0.3, 0.1])  # type: ignore[assignment]  # deps closest in meaning, status next
    question = "How can I make a job wait until another job has finished before it runs?"
    assert index.search(question, 3, "lexical")[0].doc_id == "status"  # 'finished', 'job' and nothing else
    assert [h.doc_id for h in index.search(question, 2, "hybrid")] == ["deps", "status"]


def test_a_strong_word_match_still_leads_where_meaning_is_close() -> None:
    index = DocsIndex(PAGES)
    index.vectors = Meaning([0.8, 0.9, 0.3, 0.1])  # type: ignore[assignment]
    assert index.search("depends_on another job", 1, "hybrid")[0].doc_id == "deps"  # an identifier only it has


def test_the_offline_answer_quotes_the_section_search_put_first_though_it_shares_few_of_the_plain_words() -> None:
    question = "How do I avoid the same piece of work being queued twice?"
    results = [
        (
            "search_docs",
            f'Doc sections for "{question}" (best first; open one with get_doc_section):\n'
            "- overview § Unique jobs [Overview]: Pass unique=True and a job already queued is not added again.",
        ),
        ("search_issues", "No issues match."),
        (
            "get_doc_section",
            "[overview § Unique jobs] Overview\nPass `unique=True` and a job already queued is not added again.",
        ),
    ]
    text = compose(question, results)
    assert text.startswith(OFFLINE_FROM_DOCS.format(where="`overview` § Unique jobs (Overview)")), text
    assert "> Pass `unique=True` and a job already queued is not added again." in text
