"""The triage engine a worker keeps (issue #24): grown by new issues it equals one opened anew, it is reopened
when an old issue's text or the docs change, and job threads asking at once share one open."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from atlas.settings import DEFAULT_DATA
from datasets.tracker_db import SOURCE, parse_issues
from tests.support.triage_data import TRACKER, issue
from workers.triage import meaning
from workers.triage.engine import NewIssue, Triage
from workers.triage.engine_cache import EngineCache
from workers.triage.history import History

NEW = NewIssue(
    0, "Worker dies at start: KeyError 'lease_id'", "orbit 3.0.1, the worker exits at once with KeyError: 'lease_id'"
)


def _orbit() -> list[dict[str, Any]]:
    return list(parse_issues((DEFAULT_DATA / SOURCE).read_bytes(), DEFAULT_DATA / SOURCE))


def test_an_engine_grown_by_new_issues_equals_one_opened_on_the_whole_history() -> None:
    rows = _orbit()
    full = History.from_rows(rows)
    older = {r.id for r in full.records[: len(full) * 4 // 5]}
    kept = Triage(History.from_rows([r for r in rows if r["id"] in older]))
    # meanwhile maintainers labelled and closed old issues as duplicates: read anew, not kept
    relabelled = [
        {**r, "labels": ["bug"], "duplicate_of": None, "state": "open"} if r["id"] in list(older)[:20] else r
        for r in rows
    ]
    now = History.from_rows(relabelled)
    grown = kept.grown(now)
    fresh = Triage(now)
    assert grown is not None and grown.history is now and len(grown.history) > len(kept.history)
    assert grown.index.vocab == fresh.index.vocab
    for name in ("ptr", "terms", "weights", "post_docs", "post_weights", "term_ptr"):
        assert np.array_equal(getattr(grown.index, name), getattr(fresh.index, name)), name
    assert (grown.versions, grown.signals) == (fresh.versions, fresh.signals)
    for name in ("shown", "headings", "families", "uses", "cue_seqs", "cue_family_seqs"):
        assert getattr(grown.book, name) == getattr(fresh.book, name), name
    for record in now.records[::3]:
        assert grown.triage(record.id).as_json() == fresh.triage(record.id).as_json(), record.id
    assert grown.triage(NEW).as_json() == fresh.triage(NEW).as_json()


def test_an_edited_or_reordered_history_is_not_grown() -> None:
    kept = Triage(History.from_rows(TRACKER[:5]))
    edited = [{**TRACKER[0], "body": "edited"}, *TRACKER[1:]]
    assert kept.grown(History.from_rows(edited)) is None
    earlier = issue(8, "An older report synced late", "It was opened before #5.", day="2024-01-04T12:00:00Z")
    assert kept.grown(History.from_rows([*TRACKER[:5], earlier])) is None  # it sorts before #5
    assert kept.grown(History.from_rows(TRACKER[:4])) is None


def _write(folder: Path, rows: list[dict[str, Any]]) -> None:
    (folder / "issues").mkdir(parents=True, exist_ok=True)
    (folder / SOURCE).write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_the_cache_keeps_grows_and_reopens_as_the_tracker_changes(tmp_path: Path) -> None:
    data, home = tmp_path / "data", tmp_path / "home"
    _write(data, TRACKER[:6])
    cache = EngineCache()
    first = cache.engine(data, home, False)
    assert cache.engine(data, home, False) is first and cache.opened == 1  # nothing changed: the same engine

    _write(data, [*[{**r, "labels": ["question"]} if r["id"] == 2 else r for r in TRACKER[:6]], TRACKER[6]])
    seen: list[Triage] = []
    threads = [threading.Thread(target=lambda: seen.append(cache.engine(data, home, False))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(seen) == 6 and all(e is seen[0] for e in seen)  # six jobs at once: one read, one engine
    assert (cache.opened, cache.grown) == (1, 1)
    grown = seen[0]
    assert grown.history.get(7) is not None and grown.history.by_id[2].labels == ("question",)
    assert [grown.triage(n).as_json() for n in range(1, 8)] == [
        Triage.open(data, home, False).triage(n).as_json() for n in range(1, 8)
    ]

    _write(data, [{**TRACKER[0], "body": "edited"}, *TRACKER[1:]])  # an old issue edited: opened anew
    assert cache.engine(data, home, False).history.by_id[1].body == "edited" and cache.opened == 2
    (data / "docs").mkdir()
    (data / "docs" / "leases.md").write_text("# Leases\n\n## Lease ids\n\nEach worker takes a lease id at start.\n")
    assert cache.engine(data, home, False).docs is not None and cache.opened == 3  # the docs the replies point into
    assert cache.engine(data, home, True) is not cache.engine(
        data, home, False
    )  # another semantic flag, another engine


def test_a_grown_hybrid_engine_has_the_vectors_and_triage_of_one_opened_anew() -> None:
    if not meaning.available():
        pytest.skip("the embedding model's package is not installed: triage is lexical only")
    kept = Triage(History.from_rows(TRACKER[:5]), semantic=True)
    now = History.from_rows(TRACKER)
    grown, fresh = kept.grown(now), Triage(now, semantic=True)
    assert grown is not None and grown.mode == fresh.mode == "hybrid"
    assert (
        grown.titles is not None
        and fresh.titles is not None
        and grown.openings is not None
        and fresh.openings is not None
    )
    assert np.allclose(grown.titles, fresh.titles, atol=1e-5) and np.allclose(grown.openings, fresh.openings, atol=1e-5)
    for number in (*range(1, 8), NEW):
        a, b = grown.triage(number), fresh.triage(number)
        assert [(d.id, round(d.score, 2)) for d in a.duplicates] == [(d.id, round(d.score, 2)) for d in b.duplicates]
        assert [s.name for s in a.labels] == [s.name for s in b.labels] and a.reply == b.reply
