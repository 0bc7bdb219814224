"""Messages as the Discord stand-in keeps them, per channel (or `webhook:<token>`): a post (a nonce it has seen
a few minutes back returns that message, creating none), history pages by snowflake, an edit or delete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.standins.discord_api import DiscordAPI

NONCE_WINDOW = 180.0  # Discord: a nonce is enforced against the same author's messages of "the past few minutes"


def post(api: DiscordAPI, channel: str, body: dict[str, Any]) -> dict[str, Any]:
    from tests.standins.discord_api import BOT_USER_ID

    nonce = body.get("nonce") if body.get("enforce_nonce") else None
    # Discord: the same author's message with this nonce (a few minutes back) is returned, none created
    if nonce is not None:
        earlier = next(
            (m for m in api.messages[channel] if m.get("nonce") == nonce and api.now() - m["_created"] < NONCE_WINDOW),
            None,
        )
        if earlier is not None:
            return shown(earlier)
    message = {
        "id": api.next_id(),
        "channel_id": channel,
        "author": {"id": BOT_USER_ID, "bot": True},
        **body,
        "_created": api.now(),
    }
    api.messages[channel].append(message)
    return shown(message)


def history(api: DiscordAPI, channel: str, query: dict[str, str]) -> list[dict[str, Any]]:
    """GET /channels/{id}/messages: newest first, after/before a snowflake, `limit` (1-100, default 50);
    the nonce of a message is not part of what history returns."""
    after, before = int(query.get("after") or 0), int(query.get("before") or 1 << 63)
    limit = max(1, min(100, int(query.get("limit") or 50)))
    found = sorted(
        (m for m in api.messages.get(channel, []) if after < int(m["id"]) < before), key=lambda m: int(m["id"])
    )
    page = found[:limit] if query.get("after") and not query.get("before") else found[-limit:]  # next to the id
    return [{k: v for k, v in shown(m).items() if k not in ("nonce", "enforce_nonce")} for m in reversed(page)]


def edit(api: DiscordAPI, channel: str, message_id: str, method: str, body: Any) -> tuple[int, Any]:
    for index, message in enumerate(api.messages.get(channel, [])):
        if message["id"] == message_id:
            if method == "DELETE":
                del api.messages[channel][index]
                return 204, None
            message.update(body or {})
            return 200, shown(message)
    return 404, {"message": "Unknown Message", "code": 10008}


def shown(message: dict[str, Any]) -> dict[str, Any]:
    """A message as Discord returns it (the stand-in's own bookkeeping left out)."""
    return {k: v for k, v in message.items() if not k.startswith("_")}
