"""A maintainer's ✅ on a Discord answer of Atlas's marks its thread solved (issue 39 item 4), as on Slack
(bot/slack/solved.py): the Gateway's MESSAGE_REACTION_ADD (hikari's GuildReactionAddEvent, which the
GUILD_MESSAGE_REACTIONS intent brings) starts the answer's one solved-thread run (workers/knowledge/solved_claim.py),
whose card an approver decides.

Only a maintainer's ✅ counts (the configured approvers or approver role, or a help channel's maintainer roles; with
none configured, the server's owner and members with Manage Server, from the Gateway's cache); anyone else's is a
reaction. Only on an answer: the message must be one of the answer messages of the thread's latest answer. Only in a
public thread: a private thread (type 12) or a channel whose type cannot be read starts nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

import hikari
import redis

from atlas.settings import Settings
from bot.discord.server_admin import server_admin
from workers.errors import RunNotFound
from workers.knowledge import solved_claim
from workers.runs.state import Origin
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordSurface

log = logging.getLogger("atlas.discord.reaction_solved")
SOLVED_EMOJI = "\u2705"  # ✅, :white_check_mark:
PUBLIC_THREADS = frozenset({hikari.ChannelType.GUILD_PUBLIC_THREAD, hikari.ChannelType.GUILD_NEWS_THREAD})


def reacted_solved(
    conn: redis.Redis, settings: Settings, guild: str, thread: str, message: str, user: str, names: Iterable[str] = ()
) -> str:
    """Start the solved-thread run of the answer `message` is part of; what happened, in words."""
    run_id = solved_claim.answer_in(conn, Origin(kind="discord", team=guild, channel=thread, thread_ts=thread))
    if not run_id:
        return "no answer of Atlas's in this thread"
    try:
        source = RunStore(conn).load(run_id)
    except RunNotFound:
        return "its answer is no longer kept"
    surface = source.surface
    if not isinstance(surface, DiscordSurface) or message not in {m for m, _ in surface.answer_ids}:
        return "not an answer of Atlas's"
    run, started = solved_claim.start(conn, settings.queue_name, source, user, "reaction", names)
    log.info("answer %s in %s marked solved by %s: run %s %s", message, thread, user, run, started)
    return "started" if started else "already claimed"


class ReactionSolved:
    """The MESSAGE_REACTION_ADD listener of the Gateway process."""

    def __init__(self, settings: Settings, conn: redis.Redis) -> None:
        self.settings, self.conn = settings, conn
        self.users = frozenset(settings.discord_approvers)
        self.roles = settings.help.discord_roles | (
            {settings.discord_approver_role} if settings.discord_approver_role else set()
        )

    async def on_reaction(self, event: hikari.GuildReactionAddEvent) -> None:
        if event.emoji_name != SOLVED_EMOJI or event.member.is_bot:
            return
        if not self._maintainer(event):
            return  # anyone may react ✅; only a maintainer's marks the thread solved
        if not await _public(event):
            log.info("✅ by %s in %s refused: not a public thread", event.user_id, event.channel_id)
            return
        member = event.member
        names = [str(n) for n in (member.username, member.global_name, member.nickname) if n]
        try:
            await asyncio.to_thread(
                reacted_solved,
                self.conn,
                self.settings,
                str(event.guild_id),
                str(event.channel_id),
                str(event.message_id),
                str(event.user_id),
                names,
            )
        except redis.RedisError as exc:
            log.warning("✅ on %s not recorded: Redis unavailable (%s)", event.message_id, type(exc).__name__)

    def _maintainer(self, event: hikari.GuildReactionAddEvent) -> bool:
        user, roles = str(event.user_id), {str(r) for r in event.member.role_ids}
        if user in self.users or roles & self.roles:
            return True
        if self.users or self.settings.discord_approver_role:
            return False
        cache = event.app.cache if isinstance(event.app, hikari.CacheAware) else None
        return server_admin(cache, event.guild_id, event.user_id, tuple(event.member.role_ids))


async def _public(event: hikari.GuildReactionAddEvent) -> bool:
    """A public thread, from the Gateway's cache or one Get Channel; any doubt: no."""
    cache = event.app.cache if isinstance(event.app, hikari.CacheAware) else None
    channel: hikari.PartialChannel | None = cache.get_thread(event.channel_id) if cache is not None else None
    if channel is None:
        try:
            channel = await event.app.rest.fetch_channel(event.channel_id)
        except hikari.HTTPError as exc:
            log.warning(
                "channel %s could not be read (%s): treated as not public", event.channel_id, type(exc).__name__
            )
            return False
    return channel.type in PUBLIC_THREADS
