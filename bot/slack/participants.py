"""The people of a Slack thread as Slack names them, so that a solved thread's entry names none of them (issue 39
item 4): every asker of the run and every person who wrote in the thread, each by users.info's `name`,
`real_name`, `profile.display_name` and `profile.real_name`.

Read by the worker when it drafts the entry (workers/knowledge/solved.py); the mark itself names only the asker and
the marker (bot/slack/solved.py). One page of `conversations.replies` (Slack pages a thread oldest first: its parent
and earliest replies), messages with a `bot_id` skipped, then users.info for each person, at most MAX_PEOPLE. Any
refusal leaves those names out; the approver still reads the entry on its card before it is kept.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

log = logging.getLogger("atlas.slack.participants")
MAX_PEOPLE = 10
PAGE = 100  # the thread's messages read: one page


def names(client: WebClient, channel: str, thread: str, askers: Iterable[str | None]) -> list[str]:
    """The names of the `askers` (user ids) and of every person who wrote in `thread` ('' : no thread)."""
    people = dict.fromkeys(a for a in askers if a)
    for message in _messages(client, channel, thread) if channel and thread else []:
        if not message.get("bot_id") and message.get("user"):
            people[str(message["user"])] = None
    found: list[str] = []
    for user in list(people)[:MAX_PEOPLE]:
        found += person(client, user)
    return list(dict.fromkeys(found))


def person(client: WebClient, user: str) -> list[str]:
    """How Slack names `user` (user name, real and display names); [] when Slack does not say."""
    try:
        info = client.users_info(user=user).get("user") or {}
    except (SlackClientError, OSError) as exc:
        log.info("users.info for %s failed (%s): their names are left out of the entry's check", user, exc)
        return []
    profile = info.get("profile") or {}
    said = (info.get("name"), info.get("real_name"), profile.get("display_name"), profile.get("real_name"))
    return [str(n) for n in said if n]


def _messages(client: WebClient, channel: str, thread: str) -> list[dict[str, object]]:
    try:
        reply = client.conversations_replies(channel=channel, ts=thread, limit=PAGE)
    except (SlackClientError, OSError) as exc:
        log.warning("conversations.replies of %s in %s failed (%s): its authors' names unknown", thread, channel, exc)
        return []
    return [m for m in reply.get("messages") or [] if isinstance(m, dict)]
