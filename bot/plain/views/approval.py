"""A paused run's proposed actions as plain text, from their card values (workers/messages/approval.py): each
action's tool and arguments, and where they are decided."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.plain import wording
from workers.messages.approval import CardView


def paused_text(cards: Sequence[CardView]) -> str:
    """The actions waiting for a maintainer, one line each; nothing is changed from here."""
    calls = [
        wording.PAUSED_CALL.format(name=card.name, arguments=json.dumps(card.arguments, ensure_ascii=False))
        for card in cards
    ]
    return "\n".join([wording.PAUSED.format(count=len(cards)), *calls, wording.PAUSED_WHERE])
