"""What a Discord user who clicked "File as GitHub issue" is told, only to them (workers/messages/filing.py)."""

from __future__ import annotations

from bot.discord import wording
from workers.messages import wording as said
from workers.messages.filing import FilingClick, FilingOutcome

SAID: dict[FilingOutcome, str] = {
    "drafting": said.FILE_ISSUE_DRAFTING,
    "already": said.FILE_ISSUE_ALREADY,
    "nothing": said.FILE_ISSUE_NOTHING,
    "unavailable": wording.EPHEMERAL_UNAVAILABLE,
    "which_repo": said.FILE_ISSUE_WHICH_REPO,
}


def filing_click_text(click: FilingClick) -> str:
    return SAID[click.outcome].format(repos=", ".join(click.repos))
