"""The Discord thread a run answers in, and what marks it as Atlas's.

A mention's run answers in a thread started from the mentioning message on first use: the thread's id
is the message's, so a retried job finds it again. Where no thread can be started (a DM, a thread
already, no permission) the run replies to the message in its channel. A thread Atlas answers in is
marked in Redis, so mentions there are follow-ups (bot/discord/intake.py), and its turns are kept
under a team key apart from Slack's.
"""

from __future__ import annotations

import logging

from bot.discord.rest import DiscordError, DiscordREST
from bot.discord.views.thread_title import thread_name
from workers.messages.status import ThreadTitle
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordSurface

log = logging.getLogger("atlas.discord.surface")

THREAD_MARK_TTL_SECONDS = 30 * 24 * 3600
THREAD_ALREADY_EXISTS = 160004


def thread_mark(thread_id: str) -> str:
    """A Redis key that says Atlas answers in this thread: mentions there are follow-ups."""
    return f"atlas:discord:thread:{thread_id}"


def conversation_team(guild: str | None) -> str:
    """Turn keys of Discord threads are kept apart from Slack's."""
    return f"discord:{guild or '-'}"


def channel_for(rest: DiscordREST, store: RunStore, run: RunState) -> str:
    """The channel or thread the run speaks in; a mention's thread is started on first use (saved)."""
    surface = DiscordSurface.of(run)
    if surface.thread_id:
        return surface.thread_id
    origin = run.origin
    if origin.thread_ts or surface.interaction is not None or not origin.message_ts:
        where = origin.thread_ts or origin.channel or ""
    else:
        name = thread_name(ThreadTitle(run.question))
        try:
            where = str(rest.start_thread(origin.channel or "", origin.message_ts, name)["id"])
        except DiscordError as exc:
            if exc.code == THREAD_ALREADY_EXISTS:  # a retried job: the thread has the message's id
                where = origin.message_ts
            elif exc.status in (0, 429) or exc.status >= 500:
                raise  # Discord is unreachable or busy, not refusing: the job is retried and starts it then
            else:  # no threads here (a DM, a thread already, no permission): reply in the channel
                log.info("run %s: no thread (%s); replying in the channel", run.id, exc.code)
                where = origin.channel or ""
                surface.reply_to = origin.message_ts
    if where != origin.channel:
        store.conn.set(thread_mark(where), run.id, ex=THREAD_MARK_TTL_SECONDS)
    surface.thread_id = where
    store.save(run)
    return where
