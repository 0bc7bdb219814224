"""A slash-command lookup's reply on Discord (workers/messages/lookup.py): its title and the tool's text (escaped)
with a Share button if asked for, the usage text after what was wrong, or the short failure note."""

from __future__ import annotations

from typing import Any, assert_never

from atlas.text import clip
from bot.discord import wording
from bot.discord.views.components import BUTTON_PRIMARY, SHARE_PREFIX
from bot.discord.views.limits import CONTENT_LIMIT
from bot.discord.views.markup import escape
from workers.messages import wording as said
from workers.messages.lookup import Found, Help, LookupFailed, LookupReply

LOOKUP_TITLE_CHARS = 450  # a lookup's title and its "Shared by" line each; the body gets the rest
CUSTOM_ID_CHARS = 100  # Discord's limit on a button's custom id: a longer lookup is not shareable


def lookup_payload(reply: LookupReply) -> dict[str, Any]:
    """The reply's message data (`content`, and `components` for a Share button); the endpoint adds its flags."""
    match reply:
        case Found():
            return found_payload(reply)
        case Help():
            return {"content": usage_text(reply)}
        case LookupFailed():
            return {"content": wording.LOOKUP_FAILED}
        case _:
            assert_never(reply)


def found_payload(found: Found) -> dict[str, Any]:
    """A lookup's title and the tool's text (escaped), then a Share button or who shared it."""
    result = found.result
    lookup = result.lookup
    title = said.LOOKUP_TITLE[lookup.kind].format(arg=lookup.arg) + (f" ({lookup.state})" if lookup.state else "")
    footer = ""
    if found.shared_by:
        footer = wording.SHARED_BY.format(user=found.shared_by, cmd=found.command, text=lookup.text.replace("`", ""))
    head = f"**{clip(escape(title), LOOKUP_TITLE_CHARS)}**\n"  # measured escaped: escaping can double it
    tail = f"\n{clip(footer, LOOKUP_TITLE_CHARS)}" if footer else ""
    content = head + clip(escape(result.said), CONTENT_LIMIT - len(head) - len(tail)) + tail
    payload: dict[str, Any] = {"content": content}
    custom_id = SHARE_PREFIX + lookup.text
    if found.shareable and result.ok and len(custom_id) <= CUSTOM_ID_CHARS:
        button = {"type": 2, "style": BUTTON_PRIMARY, "label": wording.SHARE_BUTTON, "custom_id": custom_id}
        payload["components"] = [{"type": 1, "components": [button]}]
    return payload


def usage_text(help_: Help) -> str:
    """The usage text, after what was wrong with the input when something was (the word typed shown as code)."""
    text = wording.USAGE.format(cmd=help_.command)
    usage = help_.usage
    if usage is not None and usage.problem:
        word = usage.word.replace("`", "")
        problem = said.LOOKUP_PROBLEM[usage.problem].format(cmd="/" + help_.command, word=word)
        text = f"{problem}\n\n{text}"
    return clip(text, CONTENT_LIMIT)
