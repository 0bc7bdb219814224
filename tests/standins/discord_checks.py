"""What Discord refuses before it acts on a request, as the stand-in answers it: a wrong bot token (401), the
global and per-route 429s a test asked for, a spent bucket (discord_buckets.py), content over 2,000 characters and
embeds over their limits (400, 50035), and a body outside Discord's OpenAPI description."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests.standins.discord_buckets import limited_body

if TYPE_CHECKING:
    from tests.standins.discord_api import DiscordAPI

Reply = tuple[int, dict[str, str], Any]
CONTENT_LIMIT = 2000
TOO_LONG = {
    "message": "Invalid Form Body",
    "code": 50035,
    "errors": {
        "content": {
            "_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": f"Must be {CONTENT_LIMIT} or fewer in length."}]
        }
    },
}

# Discord's embed limits: 10 embeds a message, a description of 4,096 characters, 6,000 in all of them
EMBEDS_PER_MESSAGE, EMBED_DESCRIPTION_CHARS, EMBEDS_TOTAL_CHARS = 10, 4096, 6000


def refusal(api: DiscordAPI, method: str, path: str, headers: Any, body: Any) -> tuple[Reply | None, dict[str, str]]:
    """Discord's answer when it refuses the request before acting on it (None: it acts), and the bucket's headers."""
    is_webhook = path.startswith("/webhooks/")
    if not is_webhook and headers.get("Authorization") != f"Bot {api.token}":
        return (401, {}, {"message": "401: Unauthorized", "code": 0}), {}
    if api.global_limited > 0:
        api.global_limited -= 1
        spent = {"X-RateLimit-Global": "true", "X-RateLimit-Scope": "global", "Retry-After": str(api.retry_after)}
        return (429, spent, limited_body(api.retry_after, is_global=True)), {}
    for pattern, left in list(api.limited.items()):
        if left > 0 and re.search(pattern, path):
            api.limited[pattern] = left - 1
            spent = {
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": str(api.retry_after),
                "X-RateLimit-Bucket": pattern,
                "X-RateLimit-Scope": "user",
                "Retry-After": str(api.retry_after),
            }
            return (429, spent, limited_body(api.retry_after)), {}
    allowed, limits, retry_after = api.buckets.take(method, path)
    if not allowed:
        return (429, limits, limited_body(retry_after)), limits
    if isinstance(body, dict) and len(body.get("content") or "") > CONTENT_LIMIT:
        api.problems.append(f"{method} {path}: content longer than {CONTENT_LIMIT}")
        return (400, limits, TOO_LONG), limits
    if api.spec is not None and method in ("POST", "PATCH", "PUT"):
        found = api.spec.problems(method, path, body)
        if found:
            api.problems.extend(f"{method} {path}: {p}" for p in found)
            return (400, {}, {"message": "Invalid Form Body", "code": 50035, "errors": found[:5]}), limits
    embeds = body.get("embeds") if isinstance(body, dict) else None
    if embeds and (
        len(embeds) > EMBEDS_PER_MESSAGE
        or sum(map(_embed_chars, embeds)) > EMBEDS_TOTAL_CHARS
        or any(len(e.get("description") or "") > EMBED_DESCRIPTION_CHARS for e in embeds)
    ):
        api.problems.append(f"{method} {path}: embeds over Discord's limits")
        return (400, limits, {"message": "Invalid Form Body", "code": 50035}), limits
    return None, limits


def _embed_chars(embed: dict[str, Any]) -> int:
    """What counts toward the 6,000: title, description, field names and values, footer text, author name."""
    fields = embed.get("fields") or []
    return (
        len(embed.get("title") or "")
        + len(embed.get("description") or "")
        + sum(len(f.get("name") or "") + len(f.get("value") or "") for f in fields)
        + len((embed.get("footer") or {}).get("text") or "")
        + len((embed.get("author") or {}).get("name") or "")
    )
