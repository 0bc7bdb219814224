"""A help channel's run that finds nothing hands off instead of guessing: the offline model calls
`hand_off` (offered to help runs only) through the real loop and tools; a question the data answers
is answered as before; a run asked by mention is never offered the tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.cli.show_run import describe
from atlas.settings import Settings
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import Call, reply_calls
from tests.support.agent_harness import RecordingReporter, settings_for
from tools.hand_off import NAME
from workers.process import runtime
from workers.runs.state import Origin, RunState


@pytest.fixture
def rt(tmp_path: Path, redis_url: str) -> runtime.Runtime:
    return runtime.build(Settings(home=tmp_path / "home", redis_url=redis_url, semantic_docs=False))


def _help_run(question: str) -> RunState:
    return RunState(
        question=question,
        origin=Origin(kind="slack", channel="C0HELP", user="U0ASKER", message_ts="1.0", unprompted=True),
    )


def test_nothing_found_in_a_help_channel_hands_off_with_what_was_looked_at(rt: runtime.Runtime) -> None:
    run = rt.agent(RecordingReporter(), unprompted=True).run(_help_run("How do I deploy on Nomad?"))
    assert run.handoff is not None and run.status == "done"
    assert "searched the docs and issues for “How do I deploy on Nomad?”" in run.handoff
    called = [item["name"] for item in run.items if item.get("type") == "function_call"]
    assert called[-1] == NAME
    outputs = {item["call_id"] for item in run.items if item.get("type") == "function_call_output"}
    assert outputs == {item["call_id"] for item in run.items if item.get("type") == "function_call"}  # paired
    assert f"handed off, not confident; looked at: {run.handoff}" in describe(run)  # what `atlas runs show` says


def test_a_question_the_data_answers_is_answered_in_a_help_channel_too(rt: runtime.Runtime) -> None:
    run = rt.agent(RecordingReporter(), unprompted=True).run(_help_run("What does ORB-1202 mean?"))
    assert run.handoff is None and run.answer and "ORB-1202" in run.answer


def test_a_run_asked_by_mention_is_never_offered_hand_off(rt: runtime.Runtime) -> None:
    run = rt.agent(RecordingReporter()).run(RunState(question="How do I deploy on Nomad?"))
    assert run.handoff is None and run.answer.startswith("I found nothing about Nomad")
    assert NAME not in rt.registry.names()


def test_a_model_that_calls_hand_off_ends_the_run_without_an_answer(
    tmp_path: Path,
    redis_url: str,
    scripted_model: ScriptedModel,
) -> None:
    """With a model: `hand_off` is among the tools it is sent in a help run, and calling it ends the run (no
    second model call: the strict stand-in fails on an unscripted one)."""
    scripted_model.script(reply_calls([Call(NAME, {"looked_at": "searched docs for Nomad; nothing"}, "call_h")]))
    settings = settings_for(tmp_path, redis_url, scripted_model.base_url)
    rt = runtime.build(settings)
    run = rt.agent(RecordingReporter(), unprompted=True).run(_help_run("How do I deploy on Nomad?"))
    assert run.handoff == "searched docs for Nomad; nothing" and len(scripted_model.requests) == 1
    assert NAME in [t["name"] for t in scripted_model.requests[0].body["tools"]]
    assert run.items[-1]["type"] == "function_call_output" and run.items[-1]["call_id"] == "call_h"  # paired
