"""At most ATLAS_OPEN_CORPORA corpora stay open in a process (issue 38): the least recently used is forgotten."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tools_dataset import make_dataset
from tools import corpus as corpora
from tools import open_corpus


@pytest.fixture
def limit_two() -> Iterator[None]:
    before = corpora.limit()
    corpora.set_limit(2)
    yield
    corpora.set_limit(before)


def test_opening_one_more_than_the_limit_forgets_the_least_recently_used(tmp_path: Path, limit_two: None) -> None:
    a, b, c = (make_dataset(tmp_path / name) for name in "abc")
    first = open_corpus(a)
    open_corpus(b)
    assert open_corpus(a) is first  # a used again: b is now the least recently used
    open_corpus(c)
    assert corpora.open_count() == 2
    assert open_corpus(a) is first  # kept
    gone = weakref.ref(open_corpus(b))  # b was forgotten: opened afresh (and c forgotten in turn)
    assert corpora.open_count() == 2
    open_corpus(c)
    open_corpus(a)
    gc.collect()
    assert gone() is None  # nothing else held it: its databases are closed with it


def test_a_forgotten_corpus_answers_the_call_that_holds_it(tmp_path: Path, limit_two: None) -> None:
    a, b, c = (make_dataset(tmp_path / name) for name in "abc")
    held = open_corpus(a)
    open_corpus(b), open_corpus(c)
    assert held.issues.id_range()[2] > 0  # still readable by whoever holds it
