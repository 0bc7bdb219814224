"""The model backtest's figures put to use (issue 36 item 6): `auto` goes by the figures of the engine that will act
and counts only the labels the model itself suggested, and a kept answer is read back only for exactly what the
model saw."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.cli.triage import check_autonomy
from atlas.errors import ConfigError
from atlas.settings import Settings
from workers.triage import autonomy
from workers.triage.engine import LabelSuggestion, Suggestions


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
