"""The five bad calls of the shared eval set (evals/bad_calls.jsonl): each is an error with an actionable hint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.paths import ORBIT, SHARED
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, dispatch, open_corpus, v2_registry

# A copy of ../shared/evals/bad_calls.jsonl (tests must not depend on files outside the repo).
SHARED_BAD_CALLS = SHARED / "evals" / "bad_calls.jsonl"
BAD_CALLS = [
    ("get_doc_section", {"doc_id": "retries", "heading": None}),
    ("get_doc_section", {"doc_id": "retries-and-backoff", "heading": "Jitter"}),
    ("search_issues", {"query": "DST", "state": "open", "limit": 50, "detail": "concise"}),
    ("get_issue", {"issue_id": 99999, "include": []}),
    ("lookup_issue", {"q": "ORB-1202"}),
]
REAL_DATA = ORBIT


def check(out_text: str, ok: bool, index: int, ctx: ToolContext) -> None:
    assert not ok
    error, _, hint = out_text.partition("\nHint: ")
    assert error.startswith("Error: ") and hint
    if index == 0:
        assert "Unknown doc_id 'retries'" in error
        assert "'retries-and-backoff'" in hint and "search_docs" in hint
    elif index == 1:
        assert "No section 'Jitter'" in error
        for heading in ctx.corpus.docs.pages["retries-and-backoff"].headings():
            assert heading in hint
    elif index == 2:
        assert "limit must be <= 20" in error
        assert "Fix the field and call again" in hint
    elif index == 3:
        low, high, _ = ctx.corpus.issues.id_range()
        assert "No issue #99999" in error
        assert f"from {low} to {high}" in hint and "ORB-xxxx" in hint and "search_docs" in hint
    elif index == 4:
        assert "Unknown tool 'lookup_issue'" in error
        for name in v2_registry().names():
            assert name in hint


@pytest.mark.parametrize("index", range(len(BAD_CALLS)))
def test_bad_call_on_fixture(tmp_path: Path, index: int) -> None:
    ctx = ToolContext(corpus=open_corpus(make_dataset(tmp_path)))
    name, args = BAD_CALLS[index]
    out = dispatch(v2_registry(), name, json.dumps(args), ctx)
    check(out.text, out.ok, index, ctx)


@pytest.mark.skipif(not (REAL_DATA / "issues" / "issues.jsonl").is_file(), reason="Orbit issues not generated yet")
@pytest.mark.parametrize("index", range(len(BAD_CALLS)))
def test_bad_call_on_real_data(index: int) -> None:
    ctx = ToolContext(corpus=open_corpus(REAL_DATA))
    name, args = BAD_CALLS[index]
    out = dispatch(v2_registry(), name, json.dumps(args), ctx)
    check(out.text, out.ok, index, ctx)


def test_copy_matches_shared_eval_file_when_present() -> None:
    shared = SHARED_BAD_CALLS
    if not shared.is_file():
        pytest.skip(f"no shared eval set beside the clone ({shared})")
    rows = [json.loads(line) for line in shared.read_text().splitlines() if line.strip()]
    assert [(r["tool"], r["arguments"]) for r in rows] == BAD_CALLS
