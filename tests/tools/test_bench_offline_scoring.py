"""How bench/offline_answers.py scores an answer's source: a section that holds the answering one counts only
when what it quotes comes from that one (a parent's lead paragraph is not the answer, though search counts the
parent as a hit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.offline_answers import CITED, NAMED, cites_answer
from tools import ToolContext, open_corpus
from workers.wording import OFFLINE_FROM_DOCS

PAGE = """# Queues

## Enqueueing

Put any function call on a queue with `enqueue`.

### Unique jobs

Pass `unique=True` so that the same job is never queued twice.
"""
UNIQUE = [["queues", "Enqueueing › Unique jobs"]]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "docs").mkdir()
    (tmp_path / "issues").mkdir()
    (tmp_path / "docs" / "queues.md").write_text(PAGE)
    (tmp_path / "issues" / "issues.jsonl").write_text("")
    return ToolContext(corpus=open_corpus(tmp_path))


def said(heading: str, quote: str) -> str:
    where = f"`queues` § {heading} (Queues)"
    return f"{OFFLINE_FROM_DOCS.format(where=where)}\n> {quote}\nThis is the closest section I found."


def test_a_parent_quoted_for_its_lead_is_not_the_right_source(ctx: ToolContext) -> None:
    text = said("Enqueueing", "Put any function call on a queue with `enqueue`.")
    assert not cites_answer(ctx, text, "queues", "Enqueueing", UNIQUE)


def test_a_parent_whose_quote_comes_from_the_answering_subsection_is(ctx: ToolContext) -> None:
    text = said("Enqueueing", "Pass `unique=True` so that the same job is never queued twice.")
    assert cites_answer(ctx, text, "queues", "Enqueueing", UNIQUE)


def test_the_answering_section_or_one_inside_it_is(ctx: ToolContext) -> None:
    text = said("Enqueueing › Unique jobs", "Pass `unique=True` so that the same job is never queued twice.")
    assert cites_answer(ctx, text, "queues", "Enqueueing › Unique jobs", UNIQUE)
    assert cites_answer(ctx, text, "queues", "Enqueueing › Unique jobs", [["queues", "Enqueueing"]])
    assert not cites_answer(ctx, text, "other", "Enqueueing › Unique jobs", UNIQUE)


def test_a_heading_holding_a_parenthesis_or_a_colon_is_read_whole() -> None:
    """The cited and see-also sections are read up to the page's title, the last parenthesis of the line."""
    text = (
        OFFLINE_FROM_DOCS.format(where="`notes` § 0.15.0 (June 23, 2021) › Usage: (Release notes)")
        + "\n> Added a thing.\nSee also `notes` § Usage: (0.47.3 (August 24, 2025)) and `queues` (Queues)."
    )
    cited = CITED.search(text)
    assert cited is not None and cited.groups() == ("notes", "0.15.0 (June 23, 2021) › Usage:")
    see_also = text.splitlines()[-1]
    assert NAMED.findall(see_also) == [("notes", "Usage:"), ("queues", "")]
    titled = OFFLINE_FROM_DOCS.format(where="`notes` § 0.15.0 (June 23, 2021) (0.47.3 (August 24, 2025))")
    cited = CITED.search(titled)
    assert cited is not None and cited.groups() == ("notes", "0.15.0 (June 23, 2021)")  # a title with its own
