"""The note a help channel's message gets when a limit held it back (workers/help/), as a value.

Said once per person and channel in an hour; a platform renders it (bot/slack/views/help.py,
bot/discord/views/help.py) with the sentence written once in workers/messages/wording.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

HeldBy = Literal["held_person", "held_channel"]


@dataclass(frozen=True)
class Held:
    """Which limit held the message back, and both limits as configured (ATLAS_HELP_PERSON_RATE, ATLAS_HELP_RATE)."""

    by: HeldBy
    person_per_hour: int
    channel_per_hour: int


def held(outcome: str, *, person_per_hour: int, channel_per_hour: int) -> Held | None:
    """The note for a help outcome (workers/help/threads.py `HELD`); None for one that is held without a word."""
    for by in get_args(HeldBy):
        if outcome == by:
            return Held(by, person_per_hour, channel_per_hour)
    return None
