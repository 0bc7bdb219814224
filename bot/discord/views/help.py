"""A help channel's note in Discord when a limit held a message back (workers/messages/help.py)."""

from __future__ import annotations

from workers.messages import wording as said
from workers.messages.help import Held


def held_content(held: Held) -> str:
    """The note's content: which limit, with both hourly limits as configured (numbers only: nothing to escape)."""
    return said.HELP_HELD[held.by].format(person=held.person_per_hour, channel=held.channel_per_hour)
