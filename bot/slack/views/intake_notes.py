"""What a Slack thread is told about a question the web process took or could not take yet
(workers/messages/intake_notes.py): how to ask after an empty mention, the queue is down, the question is kept."""

from __future__ import annotations

from typing import assert_never

from bot.slack import wording
from workers.messages.intake_notes import EmptyQuestion, IntakeNote, KeptForLater, Unavailable


def intake_note_text(note: IntakeNote) -> str:
    """The note as Slack mrkdwn (Atlas's own words only)."""
    match note:
        case EmptyQuestion():
            return wording.EMPTY_QUESTION
        case Unavailable():
            return wording.UNAVAILABLE
        case KeptForLater():
            return wording.KEPT_FOR_LATER
        case _:
            assert_never(note)
