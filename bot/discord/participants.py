"""The people of a Discord thread as Discord names them, so that a solved thread's entry names none of them (issue
39 item 4): whoever asked each turn and every author of the thread's messages, each by username, display (global)
name and server nickname.

Read by the worker when it drafts the entry (workers/knowledge/solved.py), for every way a thread is marked solved:
the button's interaction must be answered within 3 seconds and names only the clicker, and a forum tag's
THREAD_UPDATE names nobody. One page of the thread's messages (only of a thread: a channel's authors are not the
thread's), then each person's server member (Get Guild Member needs no privileged intent), at most MAX_PEOPLE.
Any refusal leaves those names out; the approver still reads the entry on its card before it is kept.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from bot.discord.rest import DiscordError, DiscordREST

log = logging.getLogger("atlas.discord.participants")
MAX_PEOPLE = 10
PAGE = 100  # the thread's latest messages read: Get Channel Messages' largest page


def names(rest: DiscordREST, guild: str | None, thread: str | None, askers: Iterable[str | None]) -> list[str]:
    """The names of the `askers` (user ids) and of every person who wrote in `thread` (None: no thread)."""
    people = dict.fromkeys(a for a in askers if a)
    found: list[Any] = []
    for message in _messages(rest, thread) if thread else []:
        author = message.get("author") or {}
        if author.get("bot") or not author.get("id"):
            continue
        people[str(author["id"])] = None
        found += [author.get("username"), author.get("global_name")]
    for user in list(people)[:MAX_PEOPLE] if guild else []:
        try:
            member = rest.request("GET", f"/guilds/{guild}/members/{user}") or {}
        except DiscordError as exc:
            log.info("member %s of %s not read (%s): their names are the thread's only", user, guild, exc.code)
            continue
        person = member.get("user") or {}
        found += [person.get("username"), person.get("global_name"), member.get("nick")]
    return list(dict.fromkeys(str(n) for n in found if n))


def _messages(rest: DiscordREST, thread: str) -> list[dict[str, Any]]:
    try:
        return list(rest.request("GET", f"/channels/{thread}/messages?limit={PAGE}") or [])
    except DiscordError as exc:
        log.warning("thread %s's messages not read (%s): its authors' names unknown", thread, exc.code)
        return []
