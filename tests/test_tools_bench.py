"""The tool benchmarks run end to end on the small fixture dataset (figures are not asserted)."""

from __future__ import annotations

from pathlib import Path

from bench import search_quality, search_scale, tools_tokens
from tests.tools_dataset import make_dataset


def test_benchmarks_run_on_fixture_data(tmp_path: Path) -> None:
    root = make_dataset(tmp_path)
    tokens = tools_tokens.run(root)[0]
    assert [r[0] for r in tokens.rows] == [*tools_tokens.QUERIES, "mean"]
    quality = search_quality.run(root)
    assert quality[0].rows[0][0] == "fts5 bm25" and quality[1].met is True
    scale = search_scale.run(root, n_issues=500)[0]
    assert [r[0] for r in scale.rows] == ["fts5 bm25", "LIKE scan"]
    assert all(table.render() for table in [tokens, *quality, scale])
