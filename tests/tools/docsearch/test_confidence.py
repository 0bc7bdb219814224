"""search_docs' calibrated "the docs likely do not cover this" (tools/docsearch/confidence.py): its second rule, the
IDF-weighted share of the question no doc has times the share the best section lacks."""

from __future__ import annotations

from dataclasses import replace

from tools.docsearch.confidence import absent_mass, uncovered
from tools.docsearch.index import DocHit, DocsIndex
from tools.docsearch.pages import Page, parse_page

DOCS = {
    "jobs": """# Jobs

## Creating jobs

Jobs are put on queues by enqueueing a function; workers run the jobs later.

## Job results

Workers keep a finished job's result on its queue for a while.

## Registries

Each registry lists the jobs of a queue in one state, as workers move them.
""",
    "workers": """# Workers

## Starting workers

Workers take jobs from queues and run them, one job at a time.

## Stopping workers

A worker that is told to stop finishes the job it took from its queue, then exits.
""",
}


def index() -> DocsIndex:
    pages: dict[str, Page] = {name: parse_page(name, text) for name, text in DOCS.items()}
    return DocsIndex(pages)  # words only: no embedding model in these tests


def similar(hits: list[DocHit], cosine: float) -> list[DocHit]:
    """The hits as a search by meaning would give them, the best passage `cosine` from the question."""
    return [replace(hit, similarity=cosine) for hit in hits]


def test_a_question_whose_rare_words_no_doc_has_is_not_covered_though_most_of_its_words_are_in_the_docs() -> None:
    docs = index()
    query = "How do I export the jobs of a worker queue to a spreadsheet?"  # 2 of its 5 words in no doc: 40%
    hits = docs.search(query, 3)
    assert absent_mass(docs, query, hits[0]) >= 0.45  # the others are in every section: they weigh little
    assert uncovered(docs, query, similar(hits, 0.3)) == ["export", "spreadsheet"]
    assert uncovered(docs, query, similar(hits, 0.6)) == []  # a passage close in meaning: it may answer


def test_ranked_by_words_only_the_weighted_rule_stays_silent() -> None:
    """Without the similarity guard it told 2 of 61 answerable development questions (bench/evals/rq_docs*.jsonl)
    that the docs do not cover them, to catch 1 more of 18 unanswerable."""
    docs = index()
    query = "How do I export the jobs of a worker queue to a spreadsheet?"
    assert uncovered(docs, query, docs.search(query, 3)) == []


def test_a_question_the_best_section_mostly_holds_is_covered_though_one_of_its_words_is_in_no_doc() -> None:
    docs = index()
    query = "How do I stop a worker gracefully?"  # 'gracefully' is in no doc; the section holds the rest
    hits = docs.search(query, 3)
    assert hits[0].heading == "Stopping workers"
    assert absent_mass(docs, query, hits[0]) < 0.45
    assert uncovered(docs, query, similar(hits, 0.3)) == []
