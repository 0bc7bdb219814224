"""`atlas triage ISSUE [--json]` and `atlas triage backtest --json`: the printed shapes, and that
nothing is written into a data folder Atlas did not make (the backtest is kept under ATLAS_HOME)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis

from atlas.cli import main as cli
from atlas.settings import DEFAULT_DATA
from tests.support.paths import SHARED
from workers.triage import autonomy, outcomes
from workers.triage.outcomes import Outcome

BLACK = SHARED / "evals" / "triage-black"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the Orbit demo that Atlas did not make (no marker): read-only to Atlas."""
    data = tmp_path / "project"
    shutil.copytree(DEFAULT_DATA / "docs", data / "docs")
    (data / "issues").mkdir()
    shutil.copy(DEFAULT_DATA / "issues" / "issues.jsonl", data / "issues" / "issues.jsonl")
    monkeypatch.setenv("ATLAS_DATA", str(data))
    monkeypatch.setenv("ATLAS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ATLAS_SEMANTIC", "0")
    return data


def _files(folder: Path) -> list[Path]:
    return sorted(p.relative_to(folder) for p in folder.rglob("*"))


def test_triage_json_is_exactly_the_documented_object(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["triage", "24", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert set(found) == {"issue", "duplicates", "labels", "reply", "related", "thresholds"} and found["issue"] == 24
    assert [set(d) for d in found["duplicates"] + found["related"]] == [{"id", "score", "evidence"}] * len(
        found["duplicates"] + found["related"]
    )
    assert 22 in [d["id"] for d in found["duplicates"] + found["related"]]  # the report it repeats: claimed or related
    assert set(found["thresholds"]) >= {"calibrated", "duplicate", "labels", "not_enough_history", "support"}
    assert all(set(s) == {"name", "score"} for s in found["labels"])
    assert found["reply"] is None or isinstance(found["reply"], str)


def test_triage_table_and_an_unknown_issue(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["triage", "24"]) == 0
    shown = capsys.readouterr().out
    assert "duplicate of #22" in shown or "related #22" in shown
    assert cli.main(["triage", "9999"]) == 1
    assert "no issue #9999" in capsys.readouterr().err
    assert cli.main(["triage", "soon"]) == 2


def test_backtest_json_shape_and_it_is_kept_outside_the_data(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(project)
    assert cli.main(["triage", "backtest", "--last", "30", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["totals"]["issues"] == 30 == len(result["issues"])
    assert set(result["totals"]["duplicates"]) == {
        "recall@1",
        "recall@3",
        "false_rate",
        "support",
        "related_recall@3",
        "claim_precision",
        "claims",
    }
    assert all(set(r) >= {"related", "thresholds"} for r in result["issues"])
    assert _files(project) == files  # nothing written into someone else's folder
    kept = autonomy.last_per_label(project, tmp_path / "home")
    assert kept == result["totals"]["labels"]["per_label"]
    assert cli.main(["triage", "backtest", "--since", "2025-06-01"]) == 0
    assert "recall@3" in capsys.readouterr().out


@pytest.mark.skipif(not (BLACK / "issues" / "issues.jsonl").is_file(), reason="no ../shared/evals/triage-black")
def test_black_backtest_runs_on_real_data_without_writing_into_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ATLAS_DATA", str(BLACK))
    monkeypatch.setenv("ATLAS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ATLAS_SEMANTIC", "0")
    files = _files(BLACK)
    assert cli.main(["triage", "backtest", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert _files(BLACK) == files
    assert result["totals"]["duplicates"]["support"] == 32
    suggested = {n for r in result["issues"] for n in r["suggested_labels"]}
    assert not any(n.lower().startswith(("s:", "r:")) or "duplicate" in n for n in suggested)
    # some originals are found as of their reports: claimed, or among the related issues below the claim threshold
    assert result["totals"]["duplicates"]["related_recall@3"] > 0


def _decided_before_issue_24(redis_url: str) -> None:
    """A maintainer's decision on a card before #24 was opened (#17 is a duplicate of #9 after all), one after."""
    conn = redis.Redis.from_url(redis_url)
    decided = Outcome(17, "duplicate", "9", True, "card", datetime(2024, 7, 1, tzinfo=UTC))
    assert outcomes.record(conn, "demo", decided, "pending-17")
    later = Outcome(18, "duplicate", "9", True, "card", datetime(2030, 1, 1, tzinfo=UTC))  # after #24: never counts
    assert outcomes.record(conn, "demo", later, "pending-18")


def test_triage_and_backtest_calibrate_with_the_recorded_decisions_when_redis_answers(
    project: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens there: history only, no failure
    assert cli.main(["triage", "24", "--json"]) == 0
    out = capsys.readouterr()
    alone = json.loads(out.out)["thresholds"]["support"]
    assert "Redis not reachable: history only" in out.err
    assert cli.main(["triage", "backtest", "--last", "30", "--json"]) == 0
    out = capsys.readouterr()
    history_only = json.loads(out.out)
    assert history_only["recorded_decisions"] is None and "Redis not reachable" in out.err

    _decided_before_issue_24(redis_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    assert cli.main(["triage", "24"]) == 0
    assert "calibrated with 2 recorded decisions of demo (Redis)" in capsys.readouterr().out
    assert cli.main(["triage", "24", "--json"]) == 0
    support = json.loads(capsys.readouterr().out)["thresholds"]["support"]
    assert support["non_duplicates"] == alone["non_duplicates"] - 1  # #17 counts as a duplicate now; #18 not yet
    assert cli.main(["triage", "backtest", "--last", "30", "--json"]) == 0
    learnt = json.loads(capsys.readouterr().out)
    assert learnt["recorded_decisions"] == 2
    assert [r["thresholds"] for r in learnt["issues"]] != [r["thresholds"] for r in history_only["issues"]]
    assert cli.main(["triage", "backtest", "--last", "30"]) == 0
    assert "calibrated with 2 recorded decisions" in capsys.readouterr().out
