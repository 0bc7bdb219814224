"""The slash command (`/orbit` by default) and its "Share in channel" button.

Answered in the ack itself, ephemeral: a lookup is a local tool call taking milliseconds, well
inside Slack's 3 seconds. The share button carries the command text and re-runs the lookup, so
sharing needs no stored state (and works while Redis is down).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App, Respond

from bot.lookups import Lookup, Usage, issues_url, parse
from bot.slack.deps import Deps
from bot.slack.views.lookup import SHARE_ACTION, lookup_message
from workers.messages.lookup import Found, Help, LookupFailed

log = logging.getLogger("atlas.bot.slack.commands")


def on_command(deps: Deps) -> Callable[..., None]:
    """Parse, look up, and answer in the ack (ephemeral)."""
    settings = deps.settings

    def handle_command(ack: Ack, command: dict[str, Any]) -> None:
        name = command.get("command") or settings.slash_command
        parsed = parse(command.get("text") or "")
        try:
            if isinstance(parsed, Usage) or parsed.kind == "help":
                reply = lookup_message(Help(name, parsed if isinstance(parsed, Usage) else None))
            else:
                result = deps.lookups.run(parsed, command.get("channel_id"))
                found = Found(result, name, shareable=True, issues_base_url=issues_url(settings, result))
                reply = lookup_message(found)
        except Exception:
            log.exception("slash command %r failed", (command.get("text") or "")[:80])
            reply = lookup_message(LookupFailed())
        ack(response_type="ephemeral", **reply)

    return handle_command


def on_share(deps: Deps) -> Callable[..., None]:
    """Post the same lookup in the channel for everyone, then remove the ephemeral original: two
    response_url requests, since one that carries `delete_original` may be taken as a pure delete."""
    settings = deps.settings

    def handle_share(ack: Ack, action: dict[str, Any], body: dict[str, Any], respond: Respond) -> None:
        ack()
        parsed = parse(str(action.get("value") or ""))
        user = (body.get("user") or {}).get("id", "")
        if not isinstance(parsed, Lookup) or parsed.kind == "help":
            return
        try:
            result = deps.lookups.run(parsed, (body.get("channel") or {}).get("id"))  # the channel's repository
            found = Found(result, settings.slash_command, shared_by=user, issues_base_url=issues_url(settings, result))
            respond(response_type="in_channel", replace_original=False, **lookup_message(found))
            respond(delete_original=True)
        except Exception:
            log.exception("sharing %r failed", parsed.text)
            respond(response_type="ephemeral", replace_original=False, **lookup_message(LookupFailed()))

    return handle_share


def register(app: App, deps: Deps) -> None:
    app.command(deps.settings.slash_command)(on_command(deps))
    app.action(SHARE_ACTION)(on_share(deps))
