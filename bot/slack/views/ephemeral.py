"""The notes only one person sees on Slack (workers/messages/ephemeral.py), as the text `chat.postEphemeral` or a
modal's error shows."""

from __future__ import annotations

from typing import assert_never

from bot.slack import wording
from bot.slack.views.approval import outcome_line
from workers.messages.ephemeral import (
    AlreadyDecided,
    EditorFailed,
    Elsewhere,
    EmptyReply,
    Ephemeral,
    Gone,
    NoLabelLeft,
    NotAllowed,
    QuestionCut,
    Unrecorded,
    VoteSaved,
)


def ephemeral_text(note: Ephemeral) -> str:
    """The note as Slack mrkdwn; every value in it is Atlas's own (ids, numbers, a decision)."""
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
            outcome = outcome_line(decision) or wording.APPROVAL_OUTCOME["expired"].format(when="now")
            return wording.APPROVAL_ALREADY.format(outcome=outcome)
        case NoLabelLeft():
            return wording.NO_LABEL_LEFT
        case EmptyReply(limit=limit):
            return wording.EMPTY_REPLY.format(limit=limit)
        case VoteSaved(vote=vote):
            return wording.FEEDBACK_SAVED[vote]
        case EditorFailed(expired=expired):
            return wording.EDIT_EXPIRED if expired else wording.EDIT_FAILED
        case QuestionCut(limit=limit):
            return wording.QUESTION_CUT.format(limit=limit)
        case _:
            assert_never(note)
