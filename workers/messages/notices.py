"""The short messages a run leaves in its thread besides the answer and cards, as values.

A platform renders each (bot/slack/views/notices.py) with its own words and markup; `Notice` is their union.
Every text field is plain, possibly untrusted text: the renderer escapes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Stopped:
    """The one line a run stopped by the person who asked leaves in the thread."""


@dataclass(frozen=True)
class HandOff:
    """A help run that is not confident: `who` (the platform's mentions, as configured) and what it looked at."""

    who: str
    looked_at: str


@dataclass(frozen=True)
class InDoubtNotice:
    """An approved action that may or may not have happened, for `user` (a platform user id, or None) to check."""

    name: str
    issue: str
    user: str | None
    url: str | None = None  # the issue's page on the tracker, when it has one


@dataclass(frozen=True)
class ThreadNote:
    """Plain text in a thread Atlas answered in (a subscription's close-the-loop note, workers/followup/)."""

    text: str


@dataclass(frozen=True)
class Undelivered:
    """The platform kept failing past its outage budget: the answer, the cards or the triage card are not there."""

    what: Literal["answer", "cards", "triage_card"]
    minutes: int
    run_id: str
    count: int = 0  # the cards: how many proposals
    issue: int | None = None  # the triage card's issue


Notice = Stopped | HandOff | InDoubtNotice | ThreadNote | Undelivered
