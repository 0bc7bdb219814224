"""`atlas discord`: the Gateway process. Mentions in channels reach a bot only over Discord's
websocket Gateway, so this process holds that connection (hikari does the connecting, heartbeats,
reconnects and resumes) and turns each mention into a run, exactly as a slash command would.

Why hikari: a maintained asyncio library whose REST base URL is a constructor argument
(`rest_url`, which also yields the Gateway URL via `/gateway/bot`), so a stand-in needs no patching;
intents are explicit; it installs with nothing but aiohttp, attrs, colorlog and multidict.

Intents: GUILD_MESSAGES, GUILDS for THREAD_UPDATE (a forum post tagged solved, bot/discord/forum_solved.py) and
GUILD_MESSAGE_REACTIONS (a maintainer's ✅ on an answer, bot/discord/reaction_solved.py). Without
the privileged MESSAGE_CONTENT intent Discord still sends the content of messages that mention the bot, which is all
Atlas reads. With help channels (ATLAS_DISCORD_HELP_CHANNELS, bot/discord/help_channels.py) it asks for MESSAGE_CONTENT
too (posts there mention nobody) and GUILDS (the Gateway's cache then knows each thread's parent, so messages
outside the help channels are not looked at). A mention in a thread Atlas
answers in is a follow-up there (the thread's earlier turns are its context); anywhere else the
worker starts a thread from the message. A MESSAGE_CREATE delivered twice (a replay after RESUME)
is claimed once by its message id. If Redis is unreachable, the mention is kept here and retried
until Redis returns (up to `KEEP_SECONDS`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import TypeVar

import hikari
import redis

from atlas.errors import ConfigError
from atlas.settings import Settings
from bot.discord import intake
from bot.discord.forum_solved import ForumSolved
from bot.discord.help_channels import HelpChannels, HelpMessage
from bot.discord.reaction_solved import ReactionSolved
from bot.discord.server_admin import server_admin
from bot.discord.views.intake_notes import intake_note_text
from bot.fast_redis import bot_redis
from workers.messages.intake_notes import EmptyQuestion
from workers.runs.state import Origin

log = logging.getLogger("atlas.discord.gateway")

# GUILDS: THREAD_UPDATE, a forum post tagged solved; reactions: a maintainer's ✅ on an answer (both: knowledge)
INTENTS = hikari.Intents.GUILD_MESSAGES | hikari.Intents.GUILDS | hikari.Intents.GUILD_MESSAGE_REACTIONS
HELP_INTENTS = INTENTS | hikari.Intents.MESSAGE_CONTENT | hikari.Intents.GUILDS
PERSON_MESSAGES = frozenset({hikari.MessageType.DEFAULT, hikari.MessageType.REPLY})  # not joins, pins, boosts...
MAX_QUESTION_CHARS = 4000
KEEP_SECONDS = 600.0  # how long a mention waits here for Redis to come back
RETRY_SECONDS = 2.0
FETCHED_KEPT = 1024  # parents of channels fetched over REST (in no cache), remembered so each is fetched once
T = TypeVar("T")


def mentions(content: str, bot_id: str) -> bool:
    """True when the text mentions Atlas. A Reply to Atlas lists it in `mentions` too (the Reply's ping,
    on by default), though the person wrote no mention: a reply is not a question to Atlas."""
    return re.search(rf"<@!?{re.escape(bot_id)}>", content or "") is not None


def question_of(content: str, bot_id: str) -> str:
    """The message without the bot's own mention; other mentions stay as they are."""
    text = re.sub(rf"<@!?{re.escape(bot_id)}>", "", content or "")
    return " ".join(text.split())[:MAX_QUESTION_CHARS]


class Gateway:
    """The mention handler, separate from the connection so tests can drive it directly."""

    def __init__(self, settings: Settings, conn: redis.Redis) -> None:
        self.settings, self.conn = settings, conn
        self.help = HelpChannels(settings, conn) if settings.help.discord_channels else None
        self._fetched: dict[str, str] = {}

    def accept(
        self, *, message_id: str, channel_id: str, guild_id: str | None, author_id: str, content: str, bot_id: str
    ) -> intake.Outcome | None:
        """Record and enqueue the mention's run; None when there is no question (a bare mention).
        Raises redis.RedisError when Redis is unreachable."""
        question = question_of(content, bot_id)
        if not question:
            return None
        follow_up = intake.in_atlas_thread(self.conn, channel_id)
        origin = Origin(
            kind="discord",
            user=author_id,
            channel=channel_id,
            team=guild_id,
            message_ts=message_id,
            thread_ts=channel_id if follow_up else None,
        )
        return intake.submit(
            self.conn,
            self.settings,
            kind="message",
            ident=message_id,
            question=question,
            origin=origin,
            thread=channel_id if follow_up else None,
        )

    async def on_message(self, event: hikari.GuildMessageCreateEvent) -> None:
        if not event.is_human:
            return  # bots (Atlas included, and any other Atlas) and webhooks never start a run
        me = event.app.get_me() if isinstance(event.app, hikari.GatewayBot) else None
        mentioned = me is not None and mentions(event.content or "", str(me.id))
        if self.help is not None and event.message.type in PERSON_MESSAGES:
            found = help_message(event, str(me.id) if me else "", mentioned, await self._parent(event))
            await self._until_redis(
                lambda: self.help.accept(found) if self.help else None, "help message", found.message_id
            )
        if me is None or not mentioned:
            return
        args = {
            "message_id": str(event.message_id),
            "channel_id": str(event.channel_id),
            "guild_id": str(event.guild_id),
            "author_id": str(event.author_id),
            "content": event.content or "",
            "bot_id": str(me.id),
        }
        kept, outcome = await self._until_redis(lambda: self.accept(**args), "mention", args["message_id"])
        if kept and outcome is None:
            await event.message.respond(
                intake_note_text(EmptyQuestion()),
                reply=True,
                mentions_everyone=False,
                user_mentions=False,
                role_mentions=False,
                mentions_reply=False,
            )

    async def _parent(self, event: hikari.GuildMessageCreateEvent) -> str | None:
        """The channel's parent: from the Gateway's cache, else over REST (a thread made while Atlas was away is
        in no cache: a forum post there was ignored); "" for a channel that is no thread; None when unknown."""
        cache = event.app.cache if isinstance(event.app, hikari.GatewayBot) else None
        if cache is None:
            return None
        thread = cache.get_thread(event.channel_id)
        if thread is not None:
            return str(thread.parent_id)
        if cache.get_guild_channel(event.channel_id) is not None:
            return ""  # a channel, not a thread
        known = self._fetched.get(str(event.channel_id))
        if known is not None:
            return known
        try:
            channel = await event.app.rest.fetch_channel(event.channel_id)
        except (TimeoutError, hikari.HikariError, OSError) as exc:
            log.info("channel %s is in no cache and could not be fetched (%s)", event.channel_id, type(exc).__name__)
            return None
        if len(self._fetched) >= FETCHED_KEPT:
            self._fetched.pop(next(iter(self._fetched)))
        parent = self._fetched[str(event.channel_id)] = (
            str(channel.parent_id) if isinstance(channel, hikari.GuildThreadChannel) else ""
        )
        return parent

    async def _until_redis(self, call: Callable[[], T], what: str, ident: str) -> tuple[bool, T | None]:
        """`call()` off the event loop, tried again until Redis answers (up to `KEEP_SECONDS`): Discord does
        not redeliver a Gateway event. (True, its result), or (False, None) once given up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + KEEP_SECONDS
        while True:
            try:
                return True, await asyncio.to_thread(call)
            except redis.RedisError as exc:
                if loop.time() > deadline:
                    log.error("%s %s dropped: Redis unreachable for %.0fs", what, ident, KEEP_SECONDS)
                    return False, None
                log.warning("%s %s kept until Redis returns: %s", what, ident, type(exc).__name__)
                await asyncio.sleep(RETRY_SECONDS)


def help_message(
    event: hikari.GuildMessageCreateEvent, bot_id: str, mentioned: bool, parent: str | None
) -> HelpMessage:
    """The message as the help rules read it; `parent`: the channel's parent (`_parent`)."""
    cache = event.app.cache if isinstance(event.app, hikari.GatewayBot) else None
    member = event.member
    roles = tuple(member.role_ids) if member else ()
    return HelpMessage(
        message_id=str(event.message_id),
        channel_id=str(event.channel_id),
        parent_id=parent,
        guild_id=str(event.guild_id),
        author_id=str(event.author_id),
        role_ids=frozenset(str(r) for r in roles),
        question=question_of(event.content or "", bot_id),
        mentioned=mentioned,
        server_admin=server_admin(cache, event.guild_id, event.author_id, roles),
    )


def intents_for(settings: Settings) -> hikari.Intents:
    """Help channels need the message-content intent (privileged: enabled on the Bot page) and GUILDS."""
    return HELP_INTENTS if settings.help.discord_channels else INTENTS


def build_bot(settings: Settings) -> hikari.GatewayBot:
    """The hikari bot with Atlas's intents and REST base URL, its mention listener attached."""
    if not settings.discord_bot_token:
        raise ConfigError("DISCORD_BOT_TOKEN is not set (the Bot page of your Discord application)")
    try:
        bot = hikari.GatewayBot(
            settings.discord_bot_token,
            intents=intents_for(settings),
            rest_url=settings.discord_api_url,
            banner=None,
            logs=None,
            suppress_optimization_warning=True,
        )
    except ValueError:
        raise ConfigError("DISCORD_BOT_TOKEN is not a bot token (copy it again from the Bot page)") from None
    conn = bot_redis(settings)
    bot.subscribe(hikari.GuildMessageCreateEvent, Gateway(settings, conn).on_message)
    bot.subscribe(
        hikari.GuildThreadUpdateEvent, ForumSolved(settings, conn).on_thread_update
    )  # tagged solved: knowledge
    bot.subscribe(hikari.GuildReactionAddEvent, ReactionSolved(settings, conn).on_reaction)  # a maintainer's ✅
    return bot


def run(settings: Settings) -> int:
    """Connect and serve until interrupted (SIGINT/SIGTERM close the connection cleanly)."""
    bot = build_bot(settings)
    log.warning("Atlas is connecting to Discord's Gateway")
    bot.run(check_for_updates=False, close_loop=True)
    return 0
