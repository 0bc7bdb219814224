"""A slash-command lookup on Discord: its title and the tool's text (escaped), a Share button if asked for; and
the channel whose repository it is about."""

from __future__ import annotations

from typing import Any

from atlas.text import clip
from bot.discord import wording
from bot.discord.views.components import BUTTON_PRIMARY, SHARE_PREFIX
from bot.discord.views.limits import CONTENT_LIMIT
from bot.discord.views.markup import escape
from bot.lookups import TITLE as LOOKUP_TITLE

LOOKUP_TITLE_CHARS = 450  # a lookup's title and its "Shared by" line each; the body gets the rest


def lookup_payload(result: Any, command: str, *, shareable: bool, shared_by: str | None = None) -> dict[str, Any]:
    """A slash-command lookup: its title and the tool's text (escaped), a Share button if asked for."""
    lookup = result.lookup
    title = LOOKUP_TITLE[lookup.kind].format(arg=lookup.arg) + (f" ({lookup.state})" if lookup.state else "")
    body = result.text if result.ok else result.text.split("\nHint:")[0]
    footer = (
        wording.SHARED_BY.format(user=shared_by, cmd=command, text=lookup.text.replace("`", "")) if shared_by else ""
    )
    head = f"**{clip(escape(title), LOOKUP_TITLE_CHARS)}**\n"  # measured escaped: escaping can double it
    tail = f"\n{clip(footer, LOOKUP_TITLE_CHARS)}" if footer else ""
    content = head + clip(escape(body), CONTENT_LIMIT - len(head) - len(tail)) + tail
    payload: dict[str, Any] = {"content": content}
    custom_id = SHARE_PREFIX + lookup.text
    if shareable and result.ok and len(custom_id) <= 100:
        payload["components"] = [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": BUTTON_PRIMARY, "label": wording.SHARE_BUTTON, "custom_id": custom_id}
                ],
            }
        ]
    return payload


def lookup_channel(org: Any, payload: dict[str, Any]) -> str | None:
    """The channel whose repository a lookup is about (issue 38): the interaction's, or, in a thread of a mapped
    channel, its parent's (Discord sends the thread's id as `channel_id` and its parent as `channel.parent_id`)."""
    channel = str(payload.get("channel_id") or "") or None
    parent = str((payload.get("channel") or {}).get("parent_id") or "") or None
    return channel if org.repo_for_channel(channel) or not parent else parent
