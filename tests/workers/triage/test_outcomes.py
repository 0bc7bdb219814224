"""The outcome store (issue 36 item 4) on real Redis: once per key, oldest first, bounded per repository, kept
apart per repository; `load` gives calibration the label and duplicate outcomes only."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import redis

from workers.triage import outcomes
from workers.triage.outcomes import Outcome


def test_each_outcome_is_kept_once_per_key_bounded_and_per_repository(
    redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outcomes, "MAX_OUTCOMES", 5)
    start = outcomes.now()
    for n in range(8):
        assert outcomes.record(
            redis_conn,
            "acme/rocket",
            Outcome(n, "label", "bug", n % 2 == 0, "card", start + timedelta(seconds=n)),
            f"k{n}",
        )
    assert not outcomes.record(
        redis_conn, "acme/rocket", Outcome(99, "label", "bug", True, "card", start), "k7"
    )  # a retried job
    assert outcomes.record(
        redis_conn, "acme/rocket", Outcome(8, "reply", "edited", False, "card", start + timedelta(seconds=8)), "k8"
    )
    assert outcomes.record(redis_conn, "acme/other", Outcome(1, "duplicate", "3", True, "maintainer", start), "k0")
    kept = outcomes.load_all(redis_conn, "acme/rocket")
    assert [o.issue for o in kept] == [4, 5, 6, 7, 8]  # the newest five, oldest first
    assert [o.issue for o in outcomes.load(redis_conn, "acme/rocket")] == [
        4,
        5,
        6,
        7,
    ]  # no reply outcome for calibration
    assert [(o.issue, o.accepted) for o in outcomes.load(redis_conn, "acme/rocket")][:2] == [(4, True), (5, False)]
    assert outcomes.load(redis_conn, "acme/other") == [
        Outcome(1, "duplicate", "3", True, "maintainer", kept[0].at - timedelta(seconds=4))
    ]
    assert [o.issue for o in outcomes.load_all(redis_conn, "acme/rocket", since=start + timedelta(seconds=7))] == [7, 8]
    assert redis_conn.ttl(outcomes.list_key("acme/rocket")) > 300 * 24 * 3600


def test_the_report_reads_live_claims_beside_the_backtest_and_says_when_there_are_none(
    redis_conn: redis.Redis, tmp_path: Path
) -> None:
    from workers.triage import live

    empty = live.report(redis_conn, "acme/rocket", 30, tmp_path / "data", tmp_path / "home")
    assert "no decision on a triage card in this period yet" in live.render(empty)
    assert (
        empty.as_json()["duplicates"]["live"]["precision"] is None and empty.as_json()["duplicates"]["backtest"] == {}
    )
    now = outcomes.now()
    for n, (outcome, key) in enumerate(
        [
            (Outcome(3, "label", "bug", True, "card", now), "a"),
            (Outcome(3, "label", "bug", False, "maintainer", now + timedelta(seconds=1)), "b"),
            (Outcome(4, "label", "bug", True, "card", now), "c"),
            (Outcome(4, "duplicate", "1", True, "card", now), "d"),
            (Outcome(4, "duplicate", "1", False, "undo", now + timedelta(seconds=2)), "e"),
        ]
    ):
        assert outcomes.record(redis_conn, "acme/rocket", outcome, key), n
    found = live.report(redis_conn, "acme/rocket", 30, tmp_path / "data", tmp_path / "home")
    text = live.render(found)
    assert (found.labels.claims, found.labels.right, found.duplicates.claims, found.duplicates.right, found.undone) == (
        2,
        1,
        1,
        0,
        1,
    )
    assert "close as duplicate" in text and "0/1" in text and "(0 reopened, 1 undone)" in text and "label bug" in text
