"""What the web process tells a thread about a question it took, or could not take yet, as values.

A platform renders each with its own words (bot/slack/views/intake_notes.py, bot/discord/views/intake_notes.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EmptyQuestion:
    """A mention with nothing after it: the note says how to ask."""


@dataclass(frozen=True)
class Unavailable:
    """The queue was unreachable and the question was not kept: it is not being worked on."""


@dataclass(frozen=True)
class KeptForLater:
    """The queue was unreachable, so the question is kept on disk and answered once it is back (bot/slack/spool.py)."""


@dataclass(frozen=True)
class UnknownCommand:
    """A command, button or form Atlas does not know (or with a value it cannot read): nothing was done.

    Only Discord says it: it sends every interaction to Atlas's endpoint, and each needs a reply."""


IntakeNote = EmptyQuestion | Unavailable | KeptForLater
