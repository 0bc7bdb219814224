"""What a Discord asker is told about a question Atlas could not take (workers/messages/intake_notes.py): how to ask
after an empty mention or `/ask`, that the queue is down, and that an interaction is none Atlas knows. Discord keeps
no question for later: it asks again."""

from __future__ import annotations

from typing import assert_never

from bot.discord import wording
from workers.messages.intake_notes import EmptyQuestion, Unavailable, UnknownCommand


def intake_note_text(note: EmptyQuestion | Unavailable | UnknownCommand) -> str:
    match note:
        case EmptyQuestion():
            return wording.EMPTY_QUESTION
        case Unavailable():
            return wording.UNAVAILABLE
        case UnknownCommand():
            return wording.UNKNOWN_COMMAND
        case _:
            assert_never(note)
