"""A card (a triage card, an approval card) posted exactly once on Discord, past the few minutes its nonce
is enforced for.

The card is created with a nonce derived from the run (`enforce_nonce`: Discord returns the message a
nonce already made, for "the past few minutes"), and the run (or the approval) records the intent (when
it is about to post) before posting (workers/runs/post_once.py). A job retried later than that, after a
worker died between Discord taking the card and the record saving its id, reads the channel's messages
since the intent and adopts the card whose buttons carry the pending ids. A card with no buttons left, or history the
bot may not read (no Read Message History), falls back to the nonce alone.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from typing import Any

from bot.discord.rest import DiscordError, DiscordREST

log = logging.getLogger("atlas.bot.discord.card_marker")

DISCORD_EPOCH_MS = 1420070400000
LOOK_BACK_SECONDS = 60.0  # clocks of the worker and of Discord differ a little
PAGE = 100
MAX_PAGES = 5


def note_nonce(key: str) -> str:
    """A thread note's nonce, from its key (at most 25 characters)."""
    return hashlib.sha256(f"note:{key}".encode()).hexdigest()[:25]


def nonce(run_id: str) -> str:
    """The card's nonce (at most 25 characters, as Discord allows)."""
    return hashlib.sha256(f"triage:{run_id}".encode()).hexdigest()[:25]


def snowflake_at(epoch_seconds: float) -> int:
    """The smallest Discord id of a message created at that time."""
    return max(0, int(epoch_seconds * 1000) - DISCORD_EPOCH_MS) << 22


def find(rest: DiscordREST, channel: str, pending_ids: Iterable[str], since: float) -> str | None:
    """The id of the card in `channel`, created after `since` (epoch seconds), whose buttons carry one of
    `pending_ids`; None when there is none or the history cannot be read (403: no Read Message History);
    a temporary failure raises."""
    wanted = {p for p in pending_ids if p}
    if not wanted:
        return None
    return find_message(
        rest, channel, since, lambda message: bool(wanted & set(_custom_ids(message.get("components") or [])))
    )


def find_note(rest: DiscordREST, channel: str, content: str, since: float) -> str | None:
    """The id of a bot's message in `channel` created after `since` whose content is `content` (a thread note
    posted once: its text is all that marks it; history does not return a message's nonce)."""
    return find_message(
        rest, channel, since, lambda m: bool((m.get("author") or {}).get("bot")) and m.get("content") == content
    )


def find_message(
    rest: DiscordREST, channel: str, since: float, matches: Callable[[dict[str, Any]], bool]
) -> str | None:
    """The id of the first message in `channel` created after `since` that `matches`; None when there is
    none or the history cannot be read; a temporary failure raises."""
    after = snowflake_at(since - LOOK_BACK_SECONDS)
    for _ in range(MAX_PAGES):
        try:
            page: list[dict[str, Any]] = (
                rest.request("GET", f"/channels/{channel}/messages?after={after}&limit={PAGE}") or []
            )
        except DiscordError as exc:
            if exc.status in (0, 429) or exc.status >= 500:
                raise  # Discord may still have the message: the job is retried, never posts a second on a blip
            log.warning("channel %s: history unreadable (%s): the message may be posted twice", channel, exc)
            return None
        for message in page:
            if matches(message):
                return str(message["id"])
        if len(page) < PAGE:
            return None
        after = max(int(m["id"]) for m in page)  # `after` pages come newest first: go on from the newest seen
    return None


def _custom_ids(components: list[dict[str, Any]]) -> Iterable[str]:
    """The pending ids behind every button of the message (custom ids are `prefix:pending id`)."""
    for row in components:
        for part in row.get("components") or [row]:
            custom = str(part.get("custom_id") or "")
            if ":" in custom:
                yield custom.partition(":")[2]
