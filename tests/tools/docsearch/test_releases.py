"""A changelog's entries rank a little below the page that explains a thing (tools/docsearch/releases.py), unless
the question names a version."""

from __future__ import annotations

import numpy as np
import pytest

from tools.docsearch import index as ranking
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import parse_page
from tools.docsearch.releases import is_release, names_version

PAGES = {
    p.doc_id: p
    for p in (
        parse_page(
            "release-notes",
            "# Release Notes\n\n## 0.38.0 (July 20, 2024)\n\n#### Added\n\n"
            "- Read an uploaded file from the form in chunks.\n\n"
            "## 0.37.2 (March 5, 2024)\n\n- Fix a typo in the docs.\n",
        ),
        parse_page("requests", "# Requests\n\n## Request Files\n\nRead an uploaded file from the form with `await`.\n"),
        parse_page("other", "# Routing\n\n## Route priority\n\nRoutes are tried in order.\n"),
    )
}


class Meaning:
    """Stands in for SectionVectors: each section's similarity to any question, fixed (in the index's order)."""

    def __init__(self, similarity: list[float]) -> None:
        self.similarity = np.array(similarity, np.float32)

    def scores(self, query: str, words: dict[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        return self.similarity, self.similarity


@pytest.mark.parametrize(
    ("heading", "entry"),
    [
        ("0.47.3 (August 24, 2025)", True),
        ("v2.1.0", True),
        ("Version 1.2", True),
        ("[1.2.3] - 2024-01-01", True),
        ("2.0.0 (unreleased)", True),
        ("1.2 Configuration", False),
        ("Python 3.X Job Failed", False),
    ],
)
def test_a_version_heading_is_a_changelog_entry_and_a_numbered_one_is_not(heading: str, entry: bool) -> None:
    assert is_release(("Release Notes", heading)) is entry
    assert is_release((heading, "Added")) is entry  # a version's own subsections too


def test_a_how_to_question_gets_the_page_that_explains_it_first() -> None:
    index = DocsIndex(PAGES)
    assert [u[2] for u in index.sections][:2] == ["0.38.0 (July 20, 2024)", "0.37.2 (March 5, 2024)"]
    index.vectors = Meaning([0.8, 0.2, 0.78, 0.1])  # type: ignore[assignment]  # the entry a little closer in meaning
    question = "How do I take in what a visitor sent me?"  # no page's words: meaning alone ranks
    assert not names_version(question)
    assert index.search(question, 1, "hybrid")[0].doc_id == "requests"
    assert index.search("What changed in 0.38?", 1, "hybrid")[0].doc_id == "release-notes"


def test_without_the_penalty_the_entry_would_lead(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above holds because of the penalty, not because of the words."""
    monkeypatch.setattr(ranking, "RELEASE_PENALTY", 0.0)
    index = DocsIndex(PAGES)
    index.vectors = Meaning([0.8, 0.2, 0.78, 0.1])  # type: ignore[assignment]
    assert index.search("How do I take in what a visitor sent me?", 1, "hybrid")[0].doc_id == "release-notes"
