"""A run's configured limits. Settings carries them; the agent loop's budget checks them (workers/agent/budget.py)."""

from __future__ import annotations

from dataclasses import dataclass

TOOL_TIMEOUT_SECONDS = 15.0  # one step's read tools, together; a slower call becomes an error output


@dataclass(frozen=True)
class Budget:
    """A run's limits; `Settings.budget` carries the configured ones (ATLAS_MAX_STEPS and kin)."""

    max_steps: int = 8
    max_seconds: float = 60.0
    max_tokens: int = 100_000
    max_errors: int = 3
