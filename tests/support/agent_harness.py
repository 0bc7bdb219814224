"""Build an in-process Agent against the scripted model, a small dataset and the real test Redis."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from atlas.settings import Settings
from tests.support.tools_dataset import make_dataset
from workers.agent import context as ctxmgmt
from workers.agent.budget import Budget
from workers.agent.events import RunEvent
from workers.agent.loop import Agent
from workers.agent.ports import Reporter
from workers.process import runtime
from workers.runs.state import RunState


class RecordingReporter(Reporter):
    """Keeps every progress event so tests can assert what a watcher would have seen."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def event(self, run: RunState, event: RunEvent) -> None:
        self.events.append((event.kind, event.record()))  # as the run's stream has it


def settings_for(tmp_path: Path, redis_url: str, base_url: str | None) -> Settings:
    data = make_dataset(tmp_path / "data")
    return Settings(
        data_dir=data,
        home=tmp_path / "home",
        redis_url=redis_url,
        openai_base_url=base_url,
        openai_api_key="test" if base_url else None,
        model_max_retries=2,
        model_timeout_seconds=10,
    )


def build_agent(
    settings: Settings,
    *,
    budget: Budget | None = None,
    context: ctxmgmt.ContextBudget | None = None,
) -> tuple[runtime.Runtime, Agent, RecordingReporter]:
    rt = runtime.build(settings)
    reporter = RecordingReporter()
    agent = rt.agent(reporter)
    if budget is not None:
        agent = replace(agent, limits=replace(agent.limits, budget=budget))
    if context is not None:
        agent = replace(agent, limits=replace(agent.limits, context=context))
    return rt, agent, reporter
