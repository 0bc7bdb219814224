"""The lookup command on Discord (no model): which channel's repository it is about, then parse, look up, render.

A reply to the one who asked (ephemeral) unless it was shared into the channel with the Share button.
"""

from __future__ import annotations

from typing import Any

from bot import lookups
from bot.discord.replies import EPHEMERAL, Reply, message
from bot.discord.views.lookup import lookup_payload
from workers.messages.lookup import Found, Help


def lookup_channel(org: Any, payload: dict[str, Any]) -> str | None:
    """The interaction's channel, or, in a thread of a mapped channel, its parent's (issue 38: Discord sends the
    thread's id as `channel_id` and its parent as `channel.parent_id`)."""
    channel = str(payload.get("channel_id") or "") or None
    parent = str((payload.get("channel") or {}).get("parent_id") or "") or None
    return channel if org.repo_for_channel(channel) or not parent else parent


def lookup_reply(
    found_by: lookups.Lookups, settings: Any, text: str, asked: dict[str, Any], *, shared_by: str | None = None
) -> Reply:
    """`text` as bot/lookups.py parses it; `asked`: the interaction, whose channel's repository `issue 42` is. A
    reply nobody shared yet offers the Share button."""
    parsed = lookups.parse(text)
    command = settings.lookup_command
    if isinstance(parsed, lookups.Usage) or parsed.kind == "help":
        usage = parsed if isinstance(parsed, lookups.Usage) else None
        return message({**lookup_payload(Help(command, usage)), "flags": EPHEMERAL})
    result = found_by.run(parsed, lookup_channel(settings.org, asked))
    payload = lookup_payload(Found(result, command, shareable=shared_by is None, shared_by=shared_by))
    if shared_by:
        return message(payload)
    return message({**payload, "flags": EPHEMERAL})
