"""What the one who clicked "File as GitHub issue" under an answer is told (only they see it), as a value.

The click claims the answer and queues its filing run (workers/followup/filing_claim.py); a platform renders the
outcome (bot/slack/views/filing.py, bot/discord/views/filing.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FilingOutcome = Literal["drafting", "already", "nothing", "unavailable", "which_repo"]


@dataclass(frozen=True)
class FilingClick:
    """`drafting`: the filing run is queued; `already`: an earlier click queued it; `nothing`: the answer is
    unknown (expired, or not this place's); `unavailable`: the store did not answer, nothing was recorded;
    `which_repo`: several repositories are served and the answer is about none of them (`repos`), so none is guessed."""

    outcome: FilingOutcome
    repos: tuple[str, ...] = ()
