"""The backtest never sees the future: a replay reads nothing created or changed after the replayed
issue was opened (ARCHITECTURE.md's invariant), and its figures and the autonomy rule."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from atlas.settings import DEFAULT_DATA
from datasets import derived
from workers.triage import autonomy, backtest
from workers.triage.engine import Triage
from workers.triage.history import History

CUT = 120  # issues up to this number are replayed; everything after it is "the future"


@functools.cache
def _orbit_rows() -> tuple[dict[str, Any], ...]:
    return tuple(
        json.loads(line) for line in (DEFAULT_DATA / "issues" / "issues.jsonl").read_text().splitlines() if line.strip()
    )


def _orbit() -> list[dict[str, Any]]:
    return list(_orbit_rows())


@functools.cache
def _orbit_engine() -> Triage:
    return _engine(_orbit())


def _engine(rows: list[dict[str, Any]]) -> Triage:
    return Triage(History.from_rows(rows))


def _replays(engine: Triage, numbers: list[int]) -> str:
    return json.dumps([engine.triage(n).as_json() for n in numbers], sort_keys=True)


def _future_changed(rows: list[dict[str, Any]], victim: dict[str, Any]) -> list[dict[str, Any]]:
    """Every later issue rewritten as a twin of `victim`, with labels first used in the future."""
    out = []
    for row in rows:
        if row["id"] > CUT:
            row = {
                **row,
                "title": victim["title"],
                "body": victim["body"],
                "labels": ["comp:from-the-future", "version:9.9.9"],
            }
        out.append(row)
    return out


def test_changing_every_later_issue_leaves_each_earlier_replay_byte_identical() -> None:
    rows = _orbit()
    numbers = [r["id"] for r in rows if 60 <= r["id"] <= CUT]
    before = _replays(_orbit_engine(), numbers)
    victim = next(r for r in rows if r["id"] == 100)
    changed = _engine(_future_changed(rows, victim))
    assert _replays(changed, numbers) == before
    # ...while a new issue, opened after all of them, does see the rewritten ones: the change was real.
    from workers.triage.engine import NewIssue

    late = changed.triage(NewIssue(10_000, victim["title"], victim["body"]))
    assert any(d.id > CUT for d in late.duplicates)


def test_an_issues_own_labels_comments_and_state_are_never_read() -> None:
    rows = _orbit()
    target = next(r for r in rows if r["id"] == 100)
    before = _orbit_engine().triage(100).as_json()
    mutated = {
        **target,
        "labels": ["comp:leak", "type:leak"],
        "state": "open",
        "duplicate_of": 99,
        "comments": [{"author": "m", "body": "Duplicate of #99", "created_at": "2099-01-01T00:00:00Z", "position": 1}],
    }
    after = _engine([mutated if r["id"] == 100 else r for r in rows]).triage(100).as_json()
    assert after == before


def test_an_earlier_change_does_change_the_replay() -> None:
    """The no-leak tests above could pass by reading nothing at all: an earlier twin must be found."""
    rows = _orbit()
    victim = next(r for r in rows if r["id"] == 100)
    twin = [{**r, "title": victim["title"], "body": victim["body"]} if r["id"] == 90 else r for r in rows]
    assert 90 in [d.id for d in _engine(twin).triage(100).duplicates]


def test_a_duplicate_decision_made_later_is_not_followed() -> None:
    engine = _orbit_engine()
    for record in engine.history.records[::4]:
        for d in engine.triage(record.id).duplicates:
            assert engine.history.by_id[d.id].seq < record.seq  # only earlier issues are candidates


def test_scores_and_the_json_shape() -> None:
    result = backtest.run(_orbit_engine(), last=40).as_json()
    totals = result["totals"]
    assert set(totals) >= {"issues", "duplicates", "labels"}
    assert set(totals["duplicates"]) == {
        "recall@1",
        "recall@3",
        "false_rate",
        "support",
        "related_recall@3",
        "claim_precision",
        "claims",
    }  # issue 36 added the two tiers' figures
    assert set(totals["labels"]) == {"precision", "recall", "per_label"}
    assert totals["issues"] == 40 == len(result["issues"])
    row = result["issues"][0]
    assert set(row) == {
        "id",
        "duplicate_of",
        "suggested_duplicates",
        "related",
        "labels",
        "suggested_labels",
        "thresholds",
    }
    assert all(f["support"] >= backtest.MIN_SUPPORT for f in totals["labels"]["per_label"].values())
    assert not any("duplicate" in name for r in result["issues"] for name in r["suggested_labels"])
    rows = [
        backtest.Replayed(1, 5, [5, 2], ["bug"], ["bug"], None),
        backtest.Replayed(2, None, [1], ["feature"], ["bug"], None),
        backtest.Replayed(3, None, [], ["bug"], [], None),
        backtest.Replayed(4, 2, [3, 2], [], ["bug"], None),
    ]
    scored = backtest.score(rows)
    assert (scored.recall_at_1, scored.recall_at_3, scored.false_rate) == (0.5, 1.0, 0.5)
    assert (scored.precision, scored.recall) == (0.5, 0.333)  # #4 has no topic label: not scored


def test_auto_needs_precision_095_over_20_examples_and_says_why_not(tmp_path: Path) -> None:
    figures = {
        "type:bug": {"precision": 0.96, "recall": 0.5, "support": 25},
        "comp:cli": {"precision": 0.99, "recall": 0.5, "support": 12},
        "type:question": {"precision": 0.9, "recall": 0.5, "support": 40},
    }
    assert autonomy.may_auto("type:bug", figures).allowed
    refused = autonomy.may_auto("comp:cli", figures)
    assert not refused.allowed and "0.99" in refused.reason and "12 examples" in refused.reason
    assert not autonomy.may_auto("type:question", figures).allowed
    assert not autonomy.may_auto("type:bug", None).allowed
    data = tmp_path / "project"
    data.mkdir()
    saved = autonomy.save(data, tmp_path / "home", {"totals": {"labels": {"per_label": figures}}})
    assert saved.is_relative_to(tmp_path / "home") and not any(
        data.iterdir()
    )  # never inside a folder Atlas did not make
    assert autonomy.last_per_label(data, tmp_path / "home") == figures
    assert derived.root(data, tmp_path / "home") in saved.parents
