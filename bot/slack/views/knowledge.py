"""What a Slack user who marked an answer as solved is told, in an ephemeral (workers/messages/knowledge.py)."""

from __future__ import annotations

from bot.slack import wording
from workers.messages import wording as said
from workers.messages.knowledge import SolvedClick, SolvedOutcome

SAID: dict[SolvedOutcome, str] = {
    "started": said.SOLVED_STARTED,
    "already": said.SOLVED_ALREADY,
    "private": said.SOLVED_PRIVATE,
    "nothing": said.SOLVED_NOTHING,
    "unavailable": wording.EPHEMERAL_UNAVAILABLE,
}


def solved_click_text(click: SolvedClick) -> str:
    return SAID[click.outcome]
