"""`atlas eval tools` scores first-tool choice per toolset; without a model it says so and exits."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.cli import tool_eval
from atlas.settings import Settings
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import reply_calls, reply_text
from tests.support.processes import atlas_command
from tests.support.tools_dataset import make_dataset
from workers.agent.model import ResponsesModel


def test_eval_without_a_model_says_nothing_ran_and_exits_non_zero(tmp_path: Path) -> None:
    done = atlas_command("eval", "tools", env={"ATLAS_HOME": str(tmp_path)})
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("atlas eval tools: nothing was run:") and "needs a language model" in line


def test_eval_with_no_cases_or_no_repeats_exits_non_zero(tmp_path: Path, scripted_model: ScriptedModel) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    env = {"ATLAS_HOME": str(tmp_path), **scripted_model.env()}
    for args in (["--cases", str(empty)], ["--cases", str(tmp_path / "missing.jsonl")], ["--repeats", "0"]):
        done = atlas_command("eval", "tools", *args, env=env)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "nothing was run" in done.stderr, args
    assert scripted_model.requests == []


def test_eval_scores_each_toolset_against_the_expected_tool(tmp_path: Path, scripted_model: ScriptedModel) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "\n".join(
            json.dumps(c)
            for c in [
                {"question": "What does ORB-1202 mean?", "expected_tool": "search_docs"},
                {"question": "Thanks!", "expected_tool": None},
            ]
        )
    )
    # v1 run: right (search), wrong (calls calc on small talk); v2 run: right, right.
    scripted_model.script(
        reply_calls([("search", {"q": "ORB-1202"})]),
        reply_calls([("calc", {"expr": "1+1"})]),
        reply_calls([("search_docs", {"query": "ORB-1202", "k": 3})]),
        reply_text("You're welcome."),
    )
    settings = Settings(
        data_dir=make_dataset(tmp_path / "data"), openai_base_url=scripted_model.base_url, openai_api_key="test"
    )
    results = tool_eval.evaluate(settings, ResponsesModel(settings), tool_eval.load_cases([cases]), repeats=1)
    assert results["v1"].correct_per_repeat == [1] and results["v2"].correct_per_repeat == [2]
    assert len(results["v2"].output_tokens) == 1 and results["v2"].output_tokens[0] > 10
    v1_tools = {t["name"] for t in scripted_model.requests[0].body["tools"]}
    assert v1_tools == {"search", "get", "lookup_issue", "get_comments", "calc"}
    text = tool_eval.report(settings, results, 2)
    assert text.splitlines()[1].startswith("v1") and "2" in text.splitlines()[2]
