"""`atlas triage backtest --model` (issue 36 item 6): the worker's triage call replayed with the model, through
the real openai client and the Responses stand-in (a scripted model that records every request and refuses
unscripted ones). It reports the same figures as the offline replay; the content the model sees for an issue
holds nothing created after it; a rerun makes no model call; and `--max-cost` stops the replay. What `auto` does
with the figures: test_model_backtest_auto.py."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from atlas.cli import main as cli
from atlas.settings import DEFAULT_DATA
from tests.standins.responses_api import ScriptedModel, Turn, Usage, call_outputs, reply_calls, reply_text

PLANTED = "quokkafrobnicate"  # only in the last issue: no earlier replay may see it
LATE = "zyzzogeton"  # a comment on #1 made after every issue was opened
EARLY = "earlybirdword"  # a comment on #1 made before #3 was opened: #3's replay may see it
USAGE = Usage(input_tokens=1000, output_tokens=100)  # at ATLAS_PRICE 100,100,100: $0.11 a request


def _issue(
    number: int,
    title: str,
    body: str,
    created: str,
    labels: list[str],
    duplicate_of: int | None = None,
    comments: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    return {
        "id": number,
        "title": title,
        "body": body,
        "author": "someone",
        "created_at": created,
        "closed_at": created.replace("T10", "T12"),
        "state": "closed",
        "labels": labels,
        "duplicate_of": duplicate_of,
        "comments": [
            {"author": "maintainer", "body": b, "created_at": at, "position": i}
            for i, (at, b) in enumerate(comments, 1)
        ],
    }


ISSUES = [
    _issue(
        1,
        "Worker crashes with KeyError retry_policy",
        "KeyError: 'retry_policy' when the worker starts.",
        "2024-01-01T10:00:00Z",
        ["bug"],
        comments=(("2024-01-15T10:00:00Z", f"Confirmed, {EARLY}."), ("2024-09-01T10:00:00Z", f"Fixed, {LATE}.")),
    ),
    _issue(
        2,
        "Dashboard shows the wrong time zone",
        "Times on the dashboard are in UTC, not local time.",
        "2024-02-01T10:00:00Z",
        ["ui"],
    ),
    _issue(
        3,
        "KeyError retry_policy when the scheduler starts",
        "The scheduler raises KeyError: 'retry_policy'.",
        "2024-03-01T10:00:00Z",
        ["bug"],
        duplicate_of=1,
    ),
    _issue(4, "Typo on the install page", "The install page says 'pip instal'.", "2024-04-01T10:00:00Z", ["docs"]),
    _issue(
        5,
        "Scheduler KeyError retry_policy again",
        "Still KeyError: 'retry_policy' in the scheduler.",
        "2024-05-01T10:00:00Z",
        ["bug"],
        duplicate_of=1,
    ),
    _issue(
        6,
        f"KeyError retry_policy with the {PLANTED} plugin",
        f"The {PLANTED} plugin raises KeyError retry_policy.",
        "2024-06-01T10:00:00Z",
        ["bug"],
    ),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scripted_model: ScriptedModel) -> Path:
    """A small tracker Atlas did not make, the Orbit docs, and the stand-in as the configured model."""
    data = tmp_path / "project"
    shutil.copytree(DEFAULT_DATA / "docs", data / "docs")
    (data / "issues").mkdir()
    (data / "issues" / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in ISSUES), encoding="utf-8")
    for name, value in {
        "ATLAS_DATA": str(data),
        "ATLAS_HOME": str(tmp_path / "home"),
        "ATLAS_SEMANTIC": "0",
        "ATLAS_PRICE": "100,100,100",
        "ATLAS_MODEL_RETRIES": "0",
        **scripted_model.env(),
    }.items():
        monkeypatch.setenv(name, value)
    return data


def _triager(request: dict[str, Any]) -> Turn:
    """The scripted model: first it searches (detailed) and opens the best hit with its comments; then it names
    the best hit as the duplicate and labels `bug` when the title says KeyError."""
    data = json.loads(request["input"][0]["content"].split("\n", 1)[1])
    outputs = call_outputs(request)
    if not outputs:
        return reply_calls(
            [("search_issues", {"query": data["title"], "state": None, "limit": 5, "detail": "detailed"})], usage=USAGE
        )
    found = [int(n) for n in re.findall(r"^#(\d+) \[", "\n".join(map(str, outputs.values())), re.MULTILINE)]
    if len(outputs) == 1 and found:
        return reply_calls(
            [("get_issue", {"issue_id": found[0], "include": ["body", "comments", "labels"]})], usage=USAGE
        )
    answer = {
        "duplicates": [
            {"id": n, "score": 0.9 - k / 10, "evidence": "KeyError: 'retry_policy'"} for k, n in enumerate(found[:3])
        ]
        if "KeyError" in data["title"]
        else [],
        "labels": [{"name": "bug", "score": 0.9}] if "KeyError" in data["title"] else [],
        "reply": None,
    }
    return reply_text(json.dumps(answer), usage=USAGE)


def _issue_of(body: dict[str, Any]) -> int:
    return int(json.loads(body["input"][0]["content"].split("\n", 1)[1])["number"])


def test_the_model_backtest_reports_its_figures_sees_only_the_past_and_a_rerun_makes_no_call(
    project: Path, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted_model.script(*[_triager] * 15)  # two requests an issue, three when its search finds one to open
    assert cli.main(["triage", "backtest", "--model", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    model = first["model"]
    bodies = scripted_model.bodies()
    seen: dict[int, str] = {}
    for body in bodies:
        seen[_issue_of(body)] = seen.get(_issue_of(body), "") + json.dumps(body)
    assert sorted(seen) == [1, 2, 3, 4, 5, 6]
    for number, text in seen.items():
        assert LATE not in text, f"#{number}'s replay saw a comment made after it"
        if number < 6:
            assert PLANTED not in text, f"#{number}'s replay saw the later issue #6"
        later = [i for i in ISSUES if i["id"] > number]
        assert not any(i["title"] in text for i in later), f"#{number}'s replay saw a later issue's title"
    assert EARLY in seen[3] and "function_call_output" in seen[3]  # what existed before does reach the model
    assert "Fixed" not in seen[5]  # #1's late comment is not shown to any later replay either

    assert model["replayed"] == model["selected"] == 6 and not model["stopped_at_max_cost"] and model["failures"] == 0
    assert set(model["totals"]) == set(first["totals"]) and set(model["totals"]["duplicates"]) == set(
        first["totals"]["duplicates"]
    )  # the same figures as the offline replay
    assert model["totals"]["duplicates"]["recall@3"] == 1.0 and model["totals"]["duplicates"]["support"] == 2
    assert model["totals"]["labels"]["precision"] == 1.0  # `bug` on every KeyError report, right each time
    assert model["offline_totals"] == first["totals"]  # every issue replayed: the offline side is the whole replay
    bodies = scripted_model.bodies()
    calls = len(bodies)
    assert (
        model["model_calls"] == calls
        and model["kept_answers"] == 0
        and model["cost_usd"] == pytest.approx(0.11 * calls)
    )

    assert cli.main(["triage", "backtest", "--model", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["model"]
    assert len(scripted_model.bodies()) == calls  # the rerun made no model request
    assert again["model_calls"] == 0 and again["cost_usd"] == 0 and again["kept_answers"] == calls
    assert again["totals"] == model["totals"]
    assert cli.main(["triage", "backtest", "--model"]) == 0  # the table, side by side: still no request
    shown = capsys.readouterr().out
    assert "offline" in shown and "model" in shown and "claims+related recall@3" in shown
    assert len(scripted_model.bodies()) == calls == 15  # and the fixture checks every scripted turn was used


def test_max_cost_stops_the_replay_cleanly_and_says_how_far_it_got(
    project: Path, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    # $0.11 a request, three a KeyError issue, two otherwise: #1 (0.33), #2 (0.55); #3's first call is the last
    scripted_model.script(*[_triager] * 6)
    assert cli.main(["triage", "backtest", "--model", "--max-cost", "0.6", "--json"]) == 0
    model = json.loads(capsys.readouterr().out)["model"]
    assert model["stopped_at_max_cost"] and model["replayed"] == 2 and model["selected"] == 6
    assert [r["id"] for r in model["issues"]] == [1, 2] and model["totals"]["issues"] == 2
    assert model["offline_totals"]["issues"] == 2  # the offline side is scored on the same two issues
    assert len(scripted_model.bodies()) == 6 and model["cost_usd"] == pytest.approx(0.66)
    # a rerun reads the kept answers for free and spends its own limit on the rest: with none, it stops where it was
    assert cli.main(["triage", "backtest", "--model", "--max-cost", "0"]) == 0
    assert "stopped at the cost limit ($0.00) after 2 of 6 issues" in capsys.readouterr().out
    assert len(scripted_model.bodies()) == 6  # no request: the two issues' answers (and #3's first step) were kept
