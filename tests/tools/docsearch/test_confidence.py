"""search_docs' calibrated "the docs likely do not cover this" (tools/docsearch/confidence.py) for a question asked in
ordinary words of which only a few are in no doc: said when no section is close in meaning and none clearly leads."""

from __future__ import annotations

from tools.docsearch.confidence import uncovered
from tools.docsearch.index import DocHit, DocsIndex
from tools.docsearch.pages import parse_page

INDEX = DocsIndex(
    {
        "jobs": parse_page(
            "jobs", "# Jobs\n\n## Finished jobs\n\nA finished job is kept in its registry for a while.\n"
        ),
        "queues": parse_page("queues", "# Queues\n\n## Listing queues\n\nEvery queue can be listed with its jobs.\n"),
    }
)
QUESTION = "How do I export the list of finished jobs?"  # 'export' is in no doc: 1 of its 4 words


def hit(doc_id: str, score: float, similarity: float) -> DocHit:
    return DocHit(doc_id, doc_id.title(), "", "", score, 0.5, similarity)


def test_a_few_words_in_no_doc_far_in_meaning_and_no_clear_lead_is_said_not_covered() -> None:
    assert uncovered(INDEX, QUESTION, [hit("jobs", 0.52, 0.39), hit("queues", 0.5, 0.37)]) == ["export"]


def test_a_clear_lead_or_a_close_section_keeps_it_covered() -> None:
    assert uncovered(INDEX, QUESTION, [hit("jobs", 0.8, 0.39), hit("queues", 0.4, 0.37)]) == []
    assert uncovered(INDEX, QUESTION, [hit("jobs", 0.52, 0.6), hit("queues", 0.5, 0.37)]) == []
    assert (
        uncovered(INDEX, "How do I list the finished jobs?", [hit("jobs", 0.52, 0.39), hit("queues", 0.5, 0.3)]) == []
    )
