"""The notes only one person sees, as values: why a click on a card changed nothing, what a feedback click recorded,
that a question was cut. Each platform renders them with its own words (bot/slack/views/ephemeral.py,
bot/discord/views/ephemeral.py) and sends them where only that person sees them.

`ClickNote` is what both platforms tell a clicker; the rest only Slack has occasion to say (Discord counts votes on
the buttons, its command caps a question's length, and its modal needs no trigger).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from workers.messages.approval import Decision


@dataclass(frozen=True)
class Unrecorded:
    """The store did not answer: nothing was recorded, or (`maybe`: the decision was sent, no reply came) it may
    have been, so the clicker is never told "not recorded" when it was."""

    maybe: bool = False


@dataclass(frozen=True)
class NotAllowed:
    """The clicker may not decide: only the project's maintainers can."""


@dataclass(frozen=True)
class Gone:
    """The approval request (or the triage card's action) is no longer there."""


@dataclass(frozen=True)
class Elsewhere:
    """A click that did not come from the card's own message, channel or workspace: it decides nothing."""


@dataclass(frozen=True)
class AlreadyDecided:
    """Someone decided first (or nobody did in time): the decision as its card says it."""

    decision: Decision


@dataclass(frozen=True)
class NoLabelLeft:
    """A triage card's label choice with none ticked: keep one, or reject the labels."""


@dataclass(frozen=True)
class EmptyReply:
    """A triage card's edited reply that is empty or longer than `limit` characters."""

    limit: int


ClickNote = Unrecorded | NotAllowed | Gone | Elsewhere | AlreadyDecided | NoLabelLeft | EmptyReply


@dataclass(frozen=True)
class VoteSaved:
    """A feedback click recorded: the clicker's vote now (None: their vote removed)."""

    vote: Literal["up", "down"] | None


@dataclass(frozen=True)
class EditorFailed:
    """The reply editor did not open; `expired`: the platform's window for opening it had passed."""

    expired: bool = False


@dataclass(frozen=True)
class QuestionCut:
    """The asker's question was longer than `limit` characters, so only its start is answered."""

    limit: int


Ephemeral = ClickNote | VoteSaved | EditorFailed | QuestionCut
