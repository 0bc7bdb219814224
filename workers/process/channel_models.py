"""A run's model, price and budgets by the channel it was asked in (atlas.toml, atlas/channel_plan.py), every
call held to the install's and the channel's daily caps (workers/agent/capped_model.py).

The worker builds its model once (`build_models`); a channel with a model of its own gets one client for
that model, made on first use and kept for the process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis

from atlas.channel_plan import ChannelPlan, install_repo, plan
from atlas.settings import Settings
from workers.agent.capped_model import CappedModel
from workers.agent.model import Model, ResponsesModel
from workers.agent.spend import Ledger, Scope
from workers.runs.state import RunState, Usage


def build_models(settings: Settings, conn: redis.Redis) -> tuple[Model, Model | None]:
    """The worker's model and summary model: the offline one (free, no cap to hold), else the Responses API's
    held to ATLAS_DAILY_COST_LIMIT, counted for the install's repository."""
    if settings.offline:
        from workers.agent.offline import OfflineModel
        from workers.knowledge.entries import any_kept

        return OfflineModel(lambda: any_kept(conn)), None  # offline: the extractive summary
    ledger, scope = Ledger(conn), Scope(repo=install_repo(settings), install_cap=settings.daily_cost_limit)
    summary_name = settings.summary_model or settings.model
    model = CappedModel(ResponsesModel(settings), ledger, settings.price, scope)
    summary = CappedModel(ResponsesModel(settings, summary_name), ledger, settings.price_of(summary_name), scope)
    return model, summary


@dataclass
class ChannelModels:
    """The models of runs, by channel, made from the worker's (a CappedModel when a model is configured)."""

    settings: Settings
    clients: dict[str, Model] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def plan(self, run: RunState | None) -> ChannelPlan:
        origin = run.origin if run is not None else None
        return plan(self.settings, origin.channel if origin else None, origin.kind if origin else None)

    def model_for(self, run: RunState, base: Model) -> Model:
        """What answers `run`: the channel's model (or the install's `base`), its spend counted for the channel
        and its repository, held to the channel's cap and the install's."""
        if not isinstance(base, CappedModel):
            return base  # the offline model, or one a test handed in
        mine = self.plan(run)
        inner = base.inner if mine.model == self.settings.model else self._client(mine.model)
        return base.scoped(self._scope(mine), mine.price, inner)

    def scoped(self, run: RunState, summary: Model | None) -> Model | None:
        """The install's summary model (ATLAS_SUMMARY_MODEL) for `run`: its calls counted and capped as the run's."""
        if not isinstance(summary, CappedModel):
            return summary
        return summary.scoped(self._scope(self.plan(run)), summary.price)

    def _scope(self, mine: ChannelPlan) -> Scope:
        return Scope(
            repo=mine.repo or install_repo(self.settings),
            channel=mine.spend_channel,
            install_cap=self.settings.daily_cost_limit,
            channel_cap=mine.daily_cost_limit,
        )

    def _client(self, model: str) -> Model:
        with self.lock:
            if model not in self.clients:
                self.clients[model] = ResponsesModel(self.settings, model)
            return self.clients[model]


class Summarizing(Protocol):
    def summarize(
        self, items: list[dict[str, Any]], *, seconds_left: float | None = None, model: Model | None = None
    ) -> tuple[str, Usage]: ...


@dataclass(frozen=True)
class ChannelSummarizer:
    """Compaction's summarizer for a channel's run (workers/agent/ports.py `Summarizer`): the runtime's, with the
    summary model held to the run's caps."""

    runtime: Summarizing
    model: Model | None

    def summarize(self, items: list[dict[str, Any]], *, seconds_left: float | None = None) -> tuple[str, Usage]:
        return self.runtime.summarize(items, seconds_left=seconds_left, model=self.model)
