"""Run budgets: steps, working seconds, tokens and consecutive error steps, carried across pauses."""

from __future__ import annotations

from dataclasses import dataclass

from workers.state import RunState, StopReason

TOOL_TIMEOUT_SECONDS = 15.0  # one step's read tools, together; a slower call becomes an error output


@dataclass(frozen=True)
class Budget:
    """A run's limits; `Settings.budget` carries the configured ones (ATLAS_MAX_STEPS and kin)."""

    max_steps: int = 8
    max_seconds: float = 60.0
    max_tokens: int = 100_000
    max_errors: int = 3


def exhausted(budget: Budget, run: RunState) -> StopReason | None:
    """The first limit the run has reached, or None while it may take another step."""
    if run.consecutive_errors >= budget.max_errors:
        return "max_errors"
    if run.usage.total >= budget.max_tokens:
        return "max_tokens"
    if run.seconds_spent >= budget.max_seconds:
        return "max_seconds"
    if len([s for s in run.steps if not s.wrap_up]) >= budget.max_steps:
        return "max_steps"
    return None
