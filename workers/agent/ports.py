"""What a step is handed besides the model: the tools, the run's keeper, the summarizer, the limits.

The agent (workers/agent/loop.py) is built from a handful of named collaborators, each a small
interface; the worker's composition root (workers/process/runtime.py) fills them once per process, tests
fill them the same way. A reader of `Agent` sees here everything a step can touch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from workers.agent.budget import TOOL_TIMEOUT_SECONDS, Budget
from workers.agent.context import ContextBudget

if TYPE_CHECKING:
    from tools.context import ResultStash, ToolContext
    from tools.registry import Registry
    from workers.agent.events import RunEvent
    from workers.runs.state import RunState, Usage


class Tools(Protocol):
    """The tools a run may call and what their calls may use."""

    @property
    def registry(self) -> Registry: ...

    def context(self, run: RunState) -> ToolContext:
        """What the run's calls may use: the corpus, the tracker, the run's id."""
        ...

    def stash(self, run: RunState, page_tokens: int) -> ResultStash:
        """Where the run's cut results are kept, paged `page_tokens` at a time for `read_more`."""
        ...


class RunKeeper(Protocol):
    """Where a run is persisted, and what happens around its pause and its end."""

    def save(self, run: RunState) -> None:
        """Persist the whole run (every step ends saved)."""
        ...

    def settle(self, run: RunState) -> None:
        """Cost, cited sources and what answered, once, before the final save."""
        ...

    def pause(self, run: RunState) -> None:
        """Open the paused step's approvals (and schedule their expiry): after the paused run is saved,
        before the "paused" event posts cards, so every card's buttons find a record (workers/approvals/gate.py)."""
        ...


class Summarizer(Protocol):
    """Compaction's summary of the items dropped from the context window, and what it cost."""

    def summarize(self, items: list[dict[str, Any]], *, seconds_left: float | None = None) -> tuple[str, Usage]:
        """`seconds_left`: the run's working seconds, which a model call for the summary must not outlive;
        none left (zero or less): the extractive summary, without a call."""
        ...


@dataclass(frozen=True)
class Limits:
    """What a run may spend: steps, seconds, tokens and error steps; the context window; a tool call's time."""

    budget: Budget = Budget()
    context: ContextBudget = ContextBudget()
    tool_timeout: float = TOOL_TIMEOUT_SECONDS


class Reporter:
    """Receives a run's events (workers/agent/events.py); subclasses post them somewhere (a Redis stream, Slack)."""

    def event(self, run: RunState, event: RunEvent) -> None:  # pragma: no cover - interface
        pass
