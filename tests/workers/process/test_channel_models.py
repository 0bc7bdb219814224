"""A run asked in a channel atlas.toml names uses that channel's model, price and budgets, its spend counted for
the channel and its repository, and a help run there hands off to the channel's own people (issue 38)."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.settings import Price, Settings
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import Call, Usage, reply_calls, reply_text
from tests.support.agent_harness import RecordingReporter
from tests.support.tools_dataset import make_dataset
from workers.agent.cost import dollars
from workers.agent.spend import Ledger
from workers.process import runtime
from workers.runs.state import Origin, RunState

FILE = """\
[channels.C0DOCS]
repo = "orbit-labs/orbit-docs"
model = "gpt-6-sol"
price = [2.0, 0.2, 8.0]
max_steps = 1
handoff = ["S0DOCS"]
daily_cost_limit = 1.0
"""


@pytest.fixture
def rt(tmp_path: Path, redis_url: str, scripted_model: ScriptedModel) -> runtime.Runtime:
    (tmp_path / "atlas.toml").write_text(FILE)
    env = {
        **scripted_model.env(),
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_HOME": str(tmp_path / "home"),
        "REDIS_URL": redis_url,
        "ATLAS_SEMANTIC": "off",
        "ATLAS_CONFIG": str(tmp_path / "atlas.toml"),
        "ATLAS_HANDOFF": "S0EVERYONE",
        "SLACK_BOT_TOKEN": "xoxb-test-only",
        "SLACK_API_URL": "http://127.0.0.1:9/api/",
    }
    return runtime.build(Settings.from_env(env))


def _run(channel: str) -> RunState:
    return RunState(question="How do retries work?", origin=Origin(kind="slack", channel=channel, user="U0A"))


def test_a_run_in_a_named_channel_uses_its_model_price_and_budget_and_counts_its_spend_there(
    rt: runtime.Runtime, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(
        reply_calls(
            [Call("search_docs", {"query": "retries", "k": 3}, "call_1")],
            usage=Usage(input_tokens=900, output_tokens=40),
        ),
        reply_text("They back off.", usage=Usage(input_tokens=1200, output_tokens=60)),  # the wrap-up: max_steps is 1
    )
    run = _run("C0DOCS")
    rt.agent(RecordingReporter(), run=run).run(run)
    assert [r.body["model"] for r in scripted_model.requests] == ["gpt-6-sol", "gpt-6-sol"]
    assert run.stop_reason == "max_steps" and run.answered_by is not None and run.answered_by.model == "gpt-6-sol"
    cost = dollars(run.usage, Price(2.0, 0.2, 8.0))
    assert run.cost_usd == cost > 0
    spent = Ledger(rt.conn).day()
    assert spent["channel:slack:C0DOCS"] == pytest.approx(cost) == spent["repo:orbit-labs/orbit-docs"]


def test_a_run_elsewhere_keeps_the_environments_model_and_budget(
    rt: runtime.Runtime, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(reply_text("They back off.", usage=Usage(input_tokens=500, output_tokens=20)))
    run = _run("C0ELSEWHERE")
    rt.agent(RecordingReporter(), run=run).run(run)
    assert scripted_model.requests[0].body["model"] == rt.settings.model and run.stop_reason == "done"
    assert run.cost_usd == dollars(run.usage, rt.settings.price)
    assert set(Ledger(rt.conn).day()) == {"install", "repo:demo:Orbit", "channel:slack:C0ELSEWHERE"}


def test_a_help_run_hands_off_to_its_channels_own_people(rt: runtime.Runtime) -> None:
    assert getattr(rt.platform_for("slack", "C0DOCS"), "handoff", None) == "<!subteam^S0DOCS>"
    assert getattr(rt.platform_for("slack", "C0ELSEWHERE"), "handoff", None) == "<!subteam^S0EVERYONE>"


def test_compactions_summary_call_of_a_channels_run_counts_and_is_capped_as_the_runs(
    rt: runtime.Runtime, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(reply_text("They asked about retries.", usage=Usage(input_tokens=300, output_tokens=20)))
    agent = rt.agent(RecordingReporter(), run=_run("C0DOCS"))
    text, usage = agent.summarizer.summarize([{"type": "message", "role": "user", "content": "How do retries work?"}])
    assert text == "They asked about retries." and scripted_model.requests[0].body["model"] == rt.settings.model
    spent = Ledger(rt.conn).day()
    cost = dollars(usage, rt.settings.price)
    assert cost > 0 and spent["channel:slack:C0DOCS"] == pytest.approx(cost) == spent["repo:orbit-labs/orbit-docs"]
