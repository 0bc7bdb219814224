"""A run's working seconds bound every model call and every step's tools (issue 29): a worker works many runs
on threads, and nothing can stop a thread from outside, so a slow model or tool must be cut off by the run
itself. Against the strict Responses API stand-in through the real openai client: what the client was told
shows in the request's `x-stainless-read-timeout` header, so the tests assert the timeout given, not wall time."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import Turn, call_outputs, reply_calls, reply_text
from tests.support.agent_harness import build_agent, settings_for
from tools.registry import Tool
from workers.agent.budget import WRAP_UP_SECONDS, Budget
from workers.runs.state import RunState

# The harness configures a 10 s model timeout; a run that has 1.5 s of its 60 left must give the call no more.
SPENT, LEFT = 58.5, 1.5


def _timeout(request: Any) -> float:
    return float(request.headers["x-stainless-read-timeout"])


def test_a_slow_model_call_is_cut_off_at_the_runs_last_working_second(tmp_path: Path, redis_url: str,
                                                                      scripted_model: ScriptedModel) -> None:
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
    assert run.stop_reason == "max_seconds" and run.partial and run.answer == "What I found so far: nothing yet (partial)."


class _Pause(BaseModel):
    topic: str


def test_a_slow_tool_is_cut_off_at_the_runs_last_working_second(tmp_path: Path, redis_url: str,
                                                                 scripted_model: ScriptedModel) -> None:
    release, started = threading.Event(), threading.Event()

    def wait_for_disk(args: BaseModel, ctx: Any) -> str:
        started.set()
        release.wait(30)
        return "finally"

    scripted_model.script(reply_calls([("wait_for_disk", {"topic": "ORB-1202"}, "call_slow")]), reply_text("Partial: the lookup timed out."))
    rt, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url), budget=Budget(max_seconds=60))
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
