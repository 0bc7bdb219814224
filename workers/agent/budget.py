"""Run budgets: steps, working seconds, tokens and consecutive error steps, carried across pauses.

The limits themselves (`Budget`) sit in the floor (atlas/run_limits.py), since Settings carries them."""

from __future__ import annotations

import time

from atlas.run_limits import TOOL_TIMEOUT_SECONDS, Budget
from workers.runs.state import RunState, StopReason

__all__ = ["TOOL_TIMEOUT_SECONDS", "WRAP_UP_SECONDS", "Budget", "exhausted", "seconds_left"]

# The closing call after a budget stop (tools off: what was found, what is missing) gets what is left of
# the working seconds, and at least this: a run stopped on its seconds still says what it found. So a
# run's wall time is bounded by ATLAS_MAX_SECONDS plus this, whatever the model does.
WRAP_UP_SECONDS = 10.0


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


def seconds_left(budget: Budget, run: RunState, step_started: float) -> float:
    """Working seconds the run has left, counting the step in progress since `step_started` (monotonic):
    what a model call or a step's tools may take at most, since nothing can stop a worker's thread."""
    return budget.max_seconds - run.seconds_spent - (time.monotonic() - step_started)
