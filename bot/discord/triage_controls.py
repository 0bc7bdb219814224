"""The reply typed into a triage card's reply modal on Discord, read from the MODAL_SUBMIT (the modal itself, and the
card's select and buttons, are rendered by bot/discord/views/triage_controls.py)."""

from __future__ import annotations

from typing import Any

from bot.discord.views.triage_controls import REPLY_INPUT


def submitted_text(data: dict[str, Any]) -> str:
    """The reply typed into the modal, from a MODAL_SUBMIT's data."""
    for row in data.get("components") or []:
        for part in row.get("components") or []:
            if part.get("custom_id") == REPLY_INPUT:
                return str(part.get("value") or "")
    return ""
