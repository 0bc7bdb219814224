"""The triage card's reply modal on Discord, what its Edit button opens, and the reply typed into it (the card's
select and buttons are rendered by bot/discord/views/triage_controls.py)."""

from __future__ import annotations

from typing import Any

from bot.discord.views.triage_controls import ACTION_ROW, MODAL_PREFIX, TEXT_INPUT
from workers.new_issues.choices import REPLY_MAX_CHARS

REPLY_INPUT = "body"
PARAGRAPH = 2
MODAL_TITLE = "Edit the reply"
MODAL_LABEL = "Reply (Atlas adds who approved it)"


def reply_modal(body: str, pending_id: str) -> dict[str, Any]:
    """The modal's data (interaction response type 9), prefilled with the reply as it stands."""
    return {
        "custom_id": MODAL_PREFIX + pending_id,
        "title": MODAL_TITLE,
        "components": [
            {
                "type": ACTION_ROW,
                "components": [
                    {
                        "type": TEXT_INPUT,
                        "custom_id": REPLY_INPUT,
                        "style": PARAGRAPH,
                        "label": MODAL_LABEL,
                        "value": body,
                        "min_length": 1,
                        "max_length": REPLY_MAX_CHARS,
                        "required": True,
                    }
                ],
            }
        ],
    }


def submitted_text(data: dict[str, Any]) -> str:
    """The reply typed into the modal, from a MODAL_SUBMIT's data."""
    for row in data.get("components") or []:
        for part in row.get("components") or []:
            if part.get("custom_id") == REPLY_INPUT:
                return str(part.get("value") or "")
    return ""
