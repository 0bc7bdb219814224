"""The console's Triage page (issue 36 item 4): each action's live precision from the recorded outcomes, beside
the last backtest's figures; a label's name renders as text."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import redis

from tests.support.console_harness import served
from workers.triage import autonomy, outcomes
from workers.triage.outcomes import Outcome


def test_the_triage_page_shows_live_precision_beside_the_backtest(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    now = outcomes.now()
    old = now - timedelta(days=60)
    kept = [
        (Outcome(7, "duplicate", "3", True, "card", now), "a"),
        (Outcome(7, "duplicate", "3", False, "reopened", now), "b"),
        (Outcome(8, "duplicate", "2", True, "card", now), "c"),
        (Outcome(8, "label", "<b>bug</b>", True, "card", now), "d"),
        (Outcome(9, "label", "<b>bug</b>", False, "card", now), "e"),
        (Outcome(9, "label", "docs", True, "maintainer", now), "f"),
        (Outcome(5, "duplicate", "1", False, "card", old), "g"),
    ]  # outside the 30 days shown
    with served(redis_url, redis_conn, ATLAS_HOME=str(tmp_path / "home")) as console:
        for outcome, key in kept:
            assert outcomes.record(redis_conn, "demo", outcome, key)
        settings = console.settings
        autonomy.save(
            settings.data_dir,
            settings.home,
            {
                "totals": {
                    "duplicates": {"claim_precision": 0.96, "recall@3": 0.7, "false_rate": 0.04, "support": 40},
                    "labels": {
                        "precision": 0.88,
                        "recall": 0.5,
                        "per_label": {"<b>bug</b>": {"precision": 0.9, "recall": 0.6, "support": 30}},
                    },
                }
            },
        )
        browser = console.signed_in()
        page = browser.get("/triage")
        assert page.status_code == 200
        rows = {cells[0]: cells[1:] for cells in _rows(page.text)}
        assert rows["Close as duplicate"][:3] == ["0.50", "1 / 2", "0.96"]  # #7 reopened, #8 right; #5 is too old
        assert rows["Add labels"][:3] == ["0.50", "1 / 2", "0.88"] and "1 added by hand" in rows["Add labels"][3]
        assert rows["label &lt;b&gt;bug&lt;/b&gt;"][:3] == ["0.50", "1 / 2", "0.90"] and "<b>bug" not in page.text
        longer = {cells[0]: cells[1:] for cells in _rows(browser.get("/triage?days=90").text)}
        assert longer["Close as duplicate"][:2] == ["0.33", "1 / 3"]
        assert browser.get("/triage?days=" + "9" * 5000).status_code == 200  # a silly period: the default


def _rows(html: str) -> list[list[str]]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [[cell.split(">", 1)[1] for cell in row.split("</td>")[:-1]] for row in body.split("<tr>")[1:]]
