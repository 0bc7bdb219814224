"""The tool benchmarks run end to end on the small fixture dataset (figures are not asserted).

The plain-word questions (RQ's in `make bench`) and the semantic speed measure read the fixture folder too:
the bench on RQ's docs embeds them cold twice (minutes of CPU on a loaded machine), which proves nothing more
about whether the bench runs."""

from __future__ import annotations

from pathlib import Path

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
    speed = quality[6]  # the fixture's builds only: lexical, semantic cold, semantic read back
    assert len(quality) == 7 and (model_dir() is None or [r[0].split(":")[0] for r in speed.rows[2:5]] == ["Orbit"] * 3)
    scale = search_scale.run(root, n_issues=500)[0]
    assert [r[0] for r in scale.rows] == ["fts5 bm25", "LIKE scan"]
    assert all(table.render() for table in [tokens, *quality, scale])
