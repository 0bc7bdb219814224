"""A run's configured limits. Settings carries them; the agent loop's budget checks them (workers/agent/budget.py)."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.errors import ConfigError

TOOL_TIMEOUT_SECONDS = 15.0  # one step's read tools, together; a slower call becomes an error output


@dataclass(frozen=True)
class Budget:
    """A run's limits; `Settings.budget` carries the configured ones (ATLAS_MAX_STEPS and kin)."""

    max_steps: int = 8
    max_seconds: float = 60.0
    max_tokens: int = 100_000
    max_errors: int = 3


@dataclass(frozen=True)
class DraftBudget:
    """With a model: what drafting one "File as GitHub issue" may spend (one call, no tools), each capped at a
    mention's `Budget`. Small, because someone waits on the card: past it, the thread's own words are drafted."""

    max_tokens: int = 8_000  # ATLAS_DRAFT_MAX_TOKENS: input and output tokens of the call
    max_seconds: float = 20.0  # ATLAS_DRAFT_MAX_SECONDS: the call's working seconds, its retries included


# Runs one `atlas worker` process works at once, on threads (ATLAS_WORKER_CONCURRENCY). A run waits on the
# model nearly all its life and costs well under 1 MiB in a process that costs ~250 MiB, so one process
# should hold many; 16 keeps what one crashed process hands to the others, and the model calls one process
# opens at once, small, while still needing 16x fewer processes than one run each (`python -m bench concurrency`).
DEFAULT_WORKER_CONCURRENCY = 16
MAX_WORKER_CONCURRENCY = 1000


def worker_concurrency(raw: str | None, name: str = "ATLAS_WORKER_CONCURRENCY") -> int:
    """ATLAS_WORKER_CONCURRENCY (or `atlas worker --concurrency`, `name`) as a number of runs; ConfigError otherwise."""
    if raw is None or raw.strip() == "":
        return DEFAULT_WORKER_CONCURRENCY
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number of runs, got {raw!r}") from None
    if not 1 <= value <= MAX_WORKER_CONCURRENCY:
        raise ConfigError(f"{name} must be between 1 and {MAX_WORKER_CONCURRENCY}, got {value}")
    return value
