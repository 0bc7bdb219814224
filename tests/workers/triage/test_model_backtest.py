"""`atlas triage backtest --model` (issue 36 item 6): the worker's triage call replayed with the model, through
the real openai client and the Responses stand-in (a scripted model that records every request and refuses
unscripted ones). It reports the same figures as the offline replay; the content the model sees for an issue
holds nothing created after it; a rerun makes no model call; `--max-cost` stops the replay; and `auto` goes by
the figures of the engine that will act."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from atlas.cli import main as cli
from atlas.cli.triage import check_autonomy
from atlas.errors import ConfigError
from atlas.settings import DEFAULT_DATA, Settings
from tests.standins.responses_api import ScriptedModel, Turn, Usage, call_outputs, reply_calls, reply_text
from workers.triage import autonomy
from workers.triage.engine import LabelSuggestion, Suggestions

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


def test_auto_goes_by_the_figures_of_the_engine_that_will_act(tmp_path: Path) -> None:
    data, home = tmp_path / "data", tmp_path / "home"
    data.mkdir()
    triage = Settings.from_env(
        {"ATLAS_TRIAGE_CHANNEL": "C1", "ATLAS_TRIAGE_ACTIONS": "labels=auto", "ATLAS_TRIAGE_AUTO_LABELS": "bug"}
    ).triage
    earned = {"totals": {"labels": {"per_label": {"bug": {"precision": 0.97, "recall": 0.6, "support": 30}}}}}
    poor = {"totals": {"labels": {"per_label": {"bug": {"precision": 0.7, "recall": 0.6, "support": 30}}}}}
    autonomy.save(data, home, earned)  # the offline engine earned it
    check_autonomy(triage, data, home)  # no model: the offline figures count
    with pytest.raises(ConfigError, match="no backtest of the model gpt-x on this repository yet"):
        check_autonomy(triage, data, home, "gpt-x")  # a model acts: the offline figures do not vouch for it
    autonomy.save(data, home, poor, "gpt-x")
    with pytest.raises(ConfigError, match=r"bug may not be auto: precision 0\.70"):
        check_autonomy(triage, data, home, "gpt-x")
    autonomy.save(data, home, earned, "gpt-x")
    check_autonomy(triage, data, home, "gpt-x")
    with pytest.raises(ConfigError, match="no backtest of the model gpt-y"):
        check_autonomy(triage, data, home, "gpt-y")  # another model's figures are not this one's
    autonomy.save(data, home, poor)
    with pytest.raises(ConfigError, match="bug may not be auto"):
        check_autonomy(triage, data, home)  # the offline engine's own figures, not the model's
    found = Suggestions(7, labels=[LabelSuggestion("bug", 0.9)])
    assert autonomy.earned_by(found, "model", "gpt-x").labels == found.labels
    assert autonomy.earned_by(found, "offline", "gpt-x").labels == []  # the stand-in for a failed model call
    assert autonomy.earned_by(found, "offline", None).labels == found.labels


def test_a_kept_answer_is_read_back_only_for_exactly_what_the_model_saw(tmp_path: Path) -> None:
    """The key is the model's name and the whole request: the same request is read back (no call); another tool
    result, other instructions or another model are asked anew; a failed call is not kept."""
    from atlas.settings import Price
    from workers.agent.model import ModelReply, ModelRequest
    from workers.runs.state import Usage as Tokens
    from workers.triage.answer_cache import CachedModel, CostReached

    asked: list[ModelRequest] = []

    class Inner:
        fail = False

        def respond(self, request: ModelRequest) -> ModelReply:
            asked.append(request)
            if self.fail:
                raise RuntimeError("the API is down")
            message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "{}"}]}
            return ModelReply.of([message], Tokens(input_tokens=1000, output_tokens=0))

    def request(output: str, instructions: str = "triage") -> ModelRequest:
        return ModelRequest(
            instructions,
            [
                {"type": "message", "role": "user", "content": "#1"},
                {"type": "function_call_output", "call_id": "c1", "output": output},
            ],
            [],
        )

    inner = Inner()
    cached = CachedModel(inner, "gpt-x", tmp_path / "answers", Price(1000.0, 0.0, 0.0), max_cost=100.0)
    assert cached.respond(request("#1 [open] Worker crashes")).text == "{}"
    assert cached.respond(request("#1 [open] Worker crashes")).text == "{}" and len(asked) == 1  # read back
    assert cached.kept == 1 and cached.calls == 1 and cached.cost == pytest.approx(1.0)
    cached.respond(request("#1 [closed] Worker crashes"))  # one tool result differs: asked anew
    cached.respond(request("#1 [open] Worker crashes", "other instructions"))
    other = CachedModel(inner, "gpt-y", tmp_path / "answers", Price(1000.0, 0.0, 0.0), max_cost=100.0)
    other.respond(request("#1 [open] Worker crashes"))  # another model
    assert len(asked) == 4 and len(list((tmp_path / "answers").rglob("*.json"))) == 4
    inner.fail = True
    with pytest.raises(RuntimeError):
        cached.respond(request("#2 [open] new"))
    assert len(list((tmp_path / "answers").rglob("*.json"))) == 4  # a failed call is not kept
    spent = CachedModel(inner, "gpt-x", tmp_path / "answers", Price(1000.0, 0.0, 0.0), max_cost=0.0)
    assert spent.respond(request("#1 [open] Worker crashes")).text == "{}"  # a kept answer is free, past the limit
    with pytest.raises(CostReached):
        spent.respond(request("#3 [open] not kept"))
    assert len(asked) == 5


def test_auto_counts_only_the_labels_the_model_itself_suggested(tmp_path: Path) -> None:
    """An issue where the model failed and the offline engine stood in is scored in the report (it is what the card
    showed) but earns the model no `auto`."""
    from workers.triage.backtest import LabelFigures, Result
    from workers.triage.model_backtest import ModelReplay

    stood_in = Result(per_label={"bug": LabelFigures(1.0, 0.9, 30)})
    own = Result(per_label={"bug": LabelFigures(0.8, 0.5, 30)})
    replay = ModelReplay("gpt-x", stood_in, stood_in, 30, False, 0.0, 2.0, 10, 0, 5, own)
    data, home = tmp_path / "data", tmp_path / "home"
    data.mkdir()
    autonomy.save(data, home, replay.as_json(), "gpt-x")
    assert autonomy.acting_per_label(data, home, "gpt-x") == {"bug": {"precision": 0.8, "recall": 0.5, "support": 30}}
    assert not autonomy.may_auto("bug", autonomy.acting_per_label(data, home, "gpt-x"), "gpt-x").allowed
