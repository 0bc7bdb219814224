"""A Discord forum post tagged solved (ATLAS_SOLVED_TAG, by name, any case) becomes knowledge: the Gateway's
THREAD_UPDATE (hikari's GuildThreadUpdateEvent, which the GUILDS intent brings) with a tag newly applied whose
name is the solved tag starts the one solved-thread run of the post's latest answer by Atlas
(workers/knowledge/solved_claim.py); an approver decides its card. Forum posts are public threads: a private
thread has no tags. The tags' names are the forum channel's (`available_tags`), from the Gateway's cache or
one REST read."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

import hikari
import redis

from atlas.settings import Settings
from workers.errors import RunNotFound
from workers.knowledge import solved_claim
from workers.runs.state import Origin
from workers.runs.store import RunStore

log = logging.getLogger("atlas.discord.forum_solved")


def tagged_solved(
    conn: redis.Redis, settings: Settings, guild: str, thread: str, new_tags: Iterable[str], names: Iterable[str] = ()
) -> str:
    """Start the solved-thread run when one of the tags just applied is the solved tag; what happened, in words."""
    if settings.knowledge.solved_tag not in {t.strip().lower() for t in new_tags}:
        return "not the solved tag"
    run_id = solved_claim.answer_in(conn, Origin(kind="discord", team=guild, channel=thread, thread_ts=thread))
    if not run_id:
        return "no answer of Atlas's in this post"
    try:
        source = RunStore(conn).load(run_id)
    except RunNotFound:
        return "its answer is no longer kept"
    run, started = solved_claim.start(conn, settings.queue_name, source, "", "forum_tag", names)
    log.info("forum post %s tagged solved: run %s %s", thread, run, "started" if started else "already claimed")
    return "started" if started else "already claimed"


class ForumSolved:
    """The THREAD_UPDATE listener of the Gateway process."""

    def __init__(self, settings: Settings, conn: redis.Redis) -> None:
        self.settings = settings
        self.conn = conn

    async def on_thread_update(self, event: hikari.GuildThreadUpdateEvent) -> None:
        thread = event.thread
        now = set(getattr(thread, "applied_tag_ids", ()) or ())
        before = set(getattr(event.old_thread, "applied_tag_ids", ()) or ()) if event.old_thread is not None else set()
        added = now - before
        if not added:
            return
        try:
            cached = (
                event.app.cache.get_guild_channel(thread.parent_id)
                if isinstance(event.app, hikari.CacheAware)
                else None
            )
            forum: hikari.PartialChannel = cached or await event.app.rest.fetch_channel(thread.parent_id)
        except hikari.HTTPError as exc:
            log.warning("forum %s: its tags could not be read (%s)", thread.parent_id, type(exc).__name__)
            return
        names = [str(t.name) for t in getattr(forum, "available_tags", ()) or () if t.id in added]
        try:
            await asyncio.to_thread(tagged_solved, self.conn, self.settings, str(event.guild_id), str(thread.id), names)
        except redis.RedisError as exc:
            log.warning(
                "forum post %s tagged solved not recorded: Redis unavailable (%s)", thread.id, type(exc).__name__
            )
