"""Run budgets: steps, working seconds, tokens and consecutive error steps, carried across pauses.

The limits themselves (`Budget`) sit in the floor (atlas/run_limits.py), since Settings carries them."""

from __future__ import annotations

from atlas.run_limits import TOOL_TIMEOUT_SECONDS, Budget
from workers.runs.state import RunState, StopReason

__all__ = ["TOOL_TIMEOUT_SECONDS", "Budget", "exhausted"]


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
