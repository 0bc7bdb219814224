"""Why a click on Discord changed nothing (workers/messages/ephemeral.py `ClickNote`), as the text of the
ephemeral reply only the clicker sees."""

from __future__ import annotations

from typing import assert_never

from bot.discord import wording
from bot.discord.views.card import outcome_text
from workers.messages.ephemeral import (
    AlreadyDecided,
    ClickNote,
    Elsewhere,
    EmptyReply,
    Gone,
    NoLabelLeft,
    NotAllowed,
    Unrecorded,
)


def click_note_text(note: ClickNote) -> str:
    """The note in Discord Markdown; every value in it is Atlas's own (ids, numbers, a decision)."""
    match note:
        case Unrecorded(maybe=maybe):
            return wording.APPROVAL_UNCONFIRMED if maybe else wording.EPHEMERAL_UNAVAILABLE
        case NotAllowed():
            return wording.APPROVAL_NOT_ALLOWED
        case Gone():
            return wording.APPROVAL_GONE
        case Elsewhere():
            return wording.APPROVAL_ELSEWHERE
        case AlreadyDecided(decision=decision):
            return wording.APPROVAL_ALREADY.format(outcome=outcome_text(decision) or "expired")
        case NoLabelLeft():
            return wording.NO_LABEL_LEFT
        case EmptyReply(limit=limit):
            return wording.EMPTY_REPLY.format(limit=limit)
        case _:
            assert_never(note)
