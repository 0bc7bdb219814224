"""What the interactions endpoint answers Discord with: the interaction and response types, and the
reply shapes shared by every handler (commands, buttons, the triage card's controls)."""

from __future__ import annotations

from typing import Any

from bot.discord.rest import fit_content

PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, MODAL_SUBMIT = 1, 2, 3, 5
PONG, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE = 1, 4, 5, 6, 7
EPHEMERAL = 1 << 6

Reply = dict[str, Any]


def ephemeral(text: str, **extra: Any) -> Reply:
    """A reply only the clicker sees."""
    return message({"content": text, "flags": EPHEMERAL, **extra})


def message(data: dict[str, Any], kind: int = CHANNEL_MESSAGE) -> Reply:
    """A reply of `kind` that pings nobody and fits Discord's content limit."""
    return {"type": kind, "data": fit_content({"allowed_mentions": {"parse": []}, **data})}
