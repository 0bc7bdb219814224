"""Settings of what Atlas learns after an answer (issue 39): how long an answer's sources are watched for a
change, how many "this changed" notes a channel may get in an hour, and the Discord forum tag that marks a
post solved."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_WATCH_DAYS = 30
DEFAULT_NOTES_PER_HOUR = 6
DEFAULT_SOLVED_TAG = "solved"


@dataclass(frozen=True)
class KnowledgeSettings:
    """Answers that stay true: their sources watched, and solved threads kept as knowledge."""

    watch_days: int = DEFAULT_WATCH_DAYS  # ATLAS_ANSWER_WATCH_DAYS: 0 watches nothing
    notes_per_hour: int = DEFAULT_NOTES_PER_HOUR  # ATLAS_ANSWER_NOTES_PER_HOUR: per channel; more wait for a later sync
    solved_tag: str = DEFAULT_SOLVED_TAG  # ATLAS_SOLVED_TAG: the Discord forum tag (its name) that marks a post solved

    @property
    def watch_seconds(self) -> int:
        return self.watch_days * 24 * 3600


def knowledge_from_env(get: Callable[[str], str | None], number: Callable[..., float]) -> KnowledgeSettings:
    """The block from the environment (ConfigError on a value that is not a number)."""
    days = int(number("ATLAS_ANSWER_WATCH_DAYS", DEFAULT_WATCH_DAYS, int))
    per_hour = int(number("ATLAS_ANSWER_NOTES_PER_HOUR", DEFAULT_NOTES_PER_HOUR, int))
    tag = (get("ATLAS_SOLVED_TAG") or DEFAULT_SOLVED_TAG).strip().lower()
    return KnowledgeSettings(
        watch_days=max(0, days), notes_per_hour=max(1, per_hour), solved_tag=tag or DEFAULT_SOLVED_TAG
    )
