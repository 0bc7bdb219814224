"""A run's working seconds bound every model call and every step's tools (issue 29): a worker works many runs
on threads, and nothing can stop a thread from outside, so a slow model or tool must be cut off by the run
itself. Against the strict Responses API stand-in through the real openai client: what the client was told
shows in the request's `x-stainless-read-timeout` header, so the tests assert the timeout given, not wall time."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import call_outputs
from tests.standins.turns import Turn, reply_calls, reply_text
from tests.support.agent_harness import build_agent, settings_for
from tests.support.transcripts import investigation
from tools.registry import Tool
from workers.agent.budget import WRAP_UP_SECONDS, Budget
from workers.agent.compaction import SUMMARY_HEADER
from workers.agent.context import ContextBudget
from workers.runs.state import RunState

# The harness configures a 10 s model timeout; a run that has 1.5 s of its 60 left must give the call no more.
SPENT, LEFT = 58.5, 1.5


def _timeout(request: Any) -> float:
    return float(request.headers["x-stainless-read-timeout"])


def test_a_slow_model_call_is_cut_off_at_the_runs_last_working_second(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    release = threading.Event()

    def slow(request: Any) -> Turn:
        release.wait(30)  # far longer than the run has left; released when the test ends
        return reply_text("too late")

    scripted_model.script(slow, reply_text("What I found so far: nothing yet (partial)."))
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url), budget=Budget(max_seconds=60))
    try:
        run = agent.run(RunState(question="What does ORB-1202 mean?", seconds_spent=SPENT))
    finally:
        release.set()
    cut, wrap_up = scripted_model.requests  # the cut-off call is not retried: the budget, not the model, ended it
    assert 0 < _timeout(cut) <= LEFT
    assert _timeout(wrap_up) <= WRAP_UP_SECONDS and wrap_up.body["tool_choice"] == "none"
    assert (
        run.stop_reason == "max_seconds" and run.partial and run.answer == "What I found so far: nothing yet (partial)."
    )


class _Pause(BaseModel):
    topic: str


def test_a_slow_tool_is_cut_off_at_the_runs_last_working_second(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    release, started = threading.Event(), threading.Event()

    def wait_for_disk(args: BaseModel, ctx: Any) -> str:
        started.set()
        release.wait(30)
        return "finally"

    scripted_model.script(
        reply_calls([("wait_for_disk", {"topic": "ORB-1202"}, "call_slow")]),
        reply_text("Partial: the lookup timed out."),
    )
    rt, agent, _ = build_agent(
        settings_for(tmp_path, redis_url, scripted_model.base_url), budget=Budget(max_seconds=60)
    )
    rt.registry.add(Tool("wait_for_disk", "Look a topic up on a slow disk.", _Pause, wait_for_disk, side_effect=False))
    assert agent.limits.tool_timeout > LEFT  # the configured tool timeout alone would wait longer than the run has
    try:
        run = agent.run(RunState(question="What does ORB-1202 mean?", seconds_spent=SPENT))
    finally:
        release.set()
    assert started.is_set()
    first, wrap_up = scripted_model.requests
    assert 0 < _timeout(first) <= LEFT
    output = call_outputs(wrap_up.body)["call_slow"]
    assert "timed out after" in output and "15s" not in output  # cut at what the run had left, not the tool timeout
    assert run.stop_reason == "max_seconds" and run.partial and run.steps[0].errors == 1


# A resumed run's transcript: the question, then 80 short lookups (too short to clear), ~4,200 tokens; in a
# 6,000-token input window beside the tools' ~2,900 it must be compacted before the next model call.
LONG_TRANSCRIPT = investigation([20] * 80)
NARROW = ContextBudget(window=7_000, output_reserve=1_000)


def _summary_requests(model: ScriptedModel) -> list[Any]:
    return [r for r in model.requests if not r.body.get("tools")]  # the compaction's summary call has no tools


def _extractive_summary_sent(model: ScriptedModel) -> bool:
    return any(
        isinstance(item.get("content"), str)
        and item["content"].startswith(SUMMARY_HEADER + "\nTools called: search_issues(")
        for body in model.bodies()
        if body.get("tools")
        for item in body["input"]
    )


def test_a_slow_summary_call_is_cut_off_at_the_runs_last_working_second(tmp_path: Path, redis_url: str) -> None:
    release = threading.Event()

    def turn(request: dict[str, Any]) -> Turn:
        if request["tool_choice"] == "none" and request.get("tools"):
            return reply_text("What I found so far: #12 and ORB-1101 (partial).")
        release.wait(30)  # the summary, and the step's call if one is made: far longer than the run has left
        return reply_text("too late")

    with ScriptedModel(fallback=turn) as model:  # which requests come depends on where the budget cuts them
        _, agent, _ = build_agent(
            settings_for(tmp_path, redis_url, model.base_url), budget=Budget(max_seconds=60), context=NARROW
        )
        started = time.monotonic()
        try:
            run = agent.run(
                RunState(question=LONG_TRANSCRIPT[0]["content"], items=list(LONG_TRANSCRIPT), seconds_spent=SPENT)
            )
        finally:
            elapsed = time.monotonic() - started
            release.set()
        model.assert_done()
    [summary] = _summary_requests(model)  # cut off by the budget, not retried
    assert 0 < _timeout(summary) <= LEFT  # the configured 10 s, tried 3 times, would hold the run well past its budget
    step_calls = [r for r in model.requests if r.body["tool_choice"] == "auto"]
    assert (
        _timeout(summary) + sum(_timeout(r) for r in step_calls) <= LEFT
    )  # the step's call gets only what the summary left
    assert elapsed < LEFT + WRAP_UP_SECONDS
    assert _extractive_summary_sent(model)
    assert run.stop_reason == "max_seconds" and run.answer == "What I found so far: #12 and ORB-1101 (partial)."


def test_no_summary_call_when_no_working_second_is_left(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(reply_text("What I found so far: #12 and ORB-1101 (partial)."))
    _, agent, _ = build_agent(
        settings_for(tmp_path, redis_url, scripted_model.base_url), budget=Budget(max_seconds=60), context=NARROW
    )
    run = agent.run(RunState(question=LONG_TRANSCRIPT[0]["content"], items=list(LONG_TRANSCRIPT), seconds_spent=60))
    [wrap_up] = scripted_model.requests  # the closing call alone: its context compacted with the extractive summary
    assert wrap_up.body["tool_choice"] == "none" and _extractive_summary_sent(scripted_model)
    assert run.stop_reason == "max_seconds" and run.answer == "What I found so far: #12 and ORB-1101 (partial)."
