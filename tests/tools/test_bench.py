"""The tool benchmarks run end to end on the small fixture dataset (figures are not asserted).

The plain-word questions (RQ's in `make bench`) and the semantic speed measure read the fixture folder too:
the bench on RQ's docs embeds them cold twice (minutes of CPU on a loaded machine), which proves nothing more
about whether the bench runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import search_quality, search_scale, tools_tokens
from tests.support.tools_dataset import make_dataset
from tools.docsearch.minilm import model_dir


def test_benchmarks_run_on_fixture_data(tmp_path: Path) -> None:
    root = make_dataset(tmp_path)
    tokens = tools_tokens.run(root)[0]
    assert [r[0] for r in tokens.rows] == [*tools_tokens.QUERIES, "mean"]
    quality = search_quality.run(root, rq_data=root)
    assert quality[0].rows[0][0] == "fts5 bm25" and quality[1].met is True
    modes = ["lexical", "semantic", "hybrid"] if model_dir() is not None else ["lexical"]
    assert [[r[0] for r in t.rows] for t in quality[2:5]] == [modes] * 3  # development and both held-out sets
    assert [r[0] for r in quality[5].rows] == ["development", "held-out (both)"]  # the offline model's answers
    assert [r[0] for r in quality[6].rows] == ["RQ issues (development)"]  # and to issue questions
    speed = quality[7]  # the fixture's builds only: lexical, semantic cold, semantic read back
    assert len(quality) == 8 and (model_dir() is None or [r[0].split(":")[0] for r in speed.rows[2:5]] == ["Orbit"] * 3)
    scale = search_scale.run(root, n_issues=500)[0]
    assert [r[0] for r in scale.rows] == ["fts5 bm25", "LIKE scan"]
    assert all(table.render() for table in [tokens, *quality, scale])


def test_the_embedders_bench_swaps_only_the_similarity(tmp_path: Path) -> None:
    """With the shipped model swapped in for itself, the bench's index ranks exactly as docs search does."""
    from bench import embedders
    from bench.docs_questions import EVALS, cases
    from tools.docsearch.bridge import thread_texts
    from tools.docsearch.index import DocsIndex
    from tools.docsearch.pages import load_pages
    from tools.docsearch.semantic import encoder

    if model_dir() is None:
        pytest.skip("the embedding model's package is not installed")
    root = make_dataset(tmp_path)
    index = DocsIndex(
        load_pages(root / "docs"),
        thread_texts(root / "issues" / "issues.jsonl"),
        semantic=True,
        vectors_store=tmp_path / "vectors.db",
    )
    assert index.warm() and index.vectors is not None
    vectors, model = index.vectors.ready(), encoder()
    assert vectors is not None and model is not None
    questions = [str(c["question"]) for c in cases(EVALS)][:8]
    own = [[(h.doc_id, h.heading) for h in index.search(q, 5, "hybrid")] for q in questions]
    index.vectors = embedders.Swapped(index.vectors, lambda q: vectors @ model.encode([q])[0])  # type: ignore[assignment]
    assert [[(h.doc_id, h.heading) for h in index.search(q, 5, "hybrid")] for q in questions] == own
    table = embedders.run(((root, (EVALS,)),))[0]
    assert {(r[0], r[2]) for r in table.rows} >= {
        ("all-MiniLM-L6-v2 (shipped)", "semantic"),
        ("all-MiniLM-L6-v2 (shipped)", "hybrid"),
    }
    assert all(0.0 <= float(r[3]) <= 1.0 for r in table.rows)  # type: ignore[arg-type]
