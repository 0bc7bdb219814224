"""What the one who marked an answer as solved is told (only they see it), as a value.

"Mark as answer" claims the answer and queues its solved-thread run (workers/knowledge/solved_claim.py); a
platform renders the outcome (bot/slack/views/knowledge.py, bot/discord/views/knowledge.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SolvedOutcome = Literal["started", "already", "private", "nothing", "unavailable"]


@dataclass(frozen=True)
class SolvedClick:
    """`started`: the solved-thread run is queued; `already`: an earlier mark queued it; `private`: the thread is
    not in a public channel; `nothing`: the answer is unknown; `unavailable`: the store did not answer."""

    outcome: SolvedOutcome
