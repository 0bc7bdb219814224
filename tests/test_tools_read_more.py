"""read_more pages a stashed result through the context's stash; every failure is an error value."""

from __future__ import annotations

import json

import pytest

from tests.tools_dataset import make_dataset
from tools import StashPage, ToolContext, dispatch, open_corpus, v2_registry


class ListStash:
    """An in-memory ResultStash: pages of two 'tokens' (words) each."""

    def __init__(self, results: dict[str, list[str]]) -> None:
        self.results = results

    def page(self, ref: str, offset: int) -> StashPage | None:
        words = self.results.get(ref)
        if words is None or offset > len(words):
            return None
        end = offset + 2
        return StashPage(" ".join(words[offset:end]), end if end < len(words) else None)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory):
    return open_corpus(make_dataset(tmp_path_factory.mktemp("data")))


def read(ctx: ToolContext, ref: str, offset: int):
    return dispatch(v2_registry(), "read_more", json.dumps({"ref": ref, "offset": offset}), ctx)


def test_pages_until_the_end(corpus) -> None:
    ctx = ToolContext(corpus=corpus, stash=ListStash({"r1": ["a", "b", "c"]}))
    assert read(ctx, "r1", 0).text == "a b\n[more: read_more ref='r1' offset=2]"
    assert read(ctx, "r1", 2).text == "c\n[end of r1]"


def test_unknown_ref_says_rerun(corpus) -> None:
    out = read(ToolContext(corpus=corpus, stash=ListStash({})), "r9", 0)
    assert not out.ok and "unknown or expired" in out.text and "Re-run the original tool" in out.text


def test_negative_offset(corpus) -> None:
    out = read(ToolContext(corpus=corpus, stash=ListStash({"r1": ["a"]})), "r1", -5)
    assert not out.ok and "offset must be >= 0" in out.text


def test_no_stash(corpus) -> None:
    out = read(ToolContext(corpus=corpus), "r1", 0)
    assert not out.ok and "No stashed results" in out.text
