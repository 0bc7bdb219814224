"""`atlas discord`: the Gateway process. Mentions in channels reach a bot only over Discord's
websocket Gateway, so this process holds that connection (hikari does the connecting, heartbeats,
reconnects and resumes) and turns each mention into a run, exactly as a slash command would.

Why hikari: a maintained asyncio library whose REST base URL is a constructor argument
(`rest_url`, which also yields the Gateway URL via `/gateway/bot`), so a stand-in needs no patching;
intents are explicit; it installs with nothing but aiohttp, attrs, colorlog and multidict.

Intents: GUILD_MESSAGES only. Without the privileged MESSAGE_CONTENT intent Discord still sends the
content of messages that mention the bot, which is all Atlas reads. A mention in a thread Atlas
answers in is a follow-up there (the thread's earlier turns are its context); anywhere else the
worker starts a thread from the message. A MESSAGE_CREATE delivered twice (a replay after RESUME)
is claimed once by its message id. If Redis is unreachable, the mention is kept here and retried
until Redis returns (up to `KEEP_SECONDS`).
"""

from __future__ import annotations

import asyncio
import logging
import re

import hikari
import redis

from atlas.errors import ConfigError
from atlas.settings import Settings
from bot.deps import bot_redis
from bot.discord import intake, wording
from workers.runs.state import Origin

log = logging.getLogger("atlas.discord.gateway")

INTENTS = hikari.Intents.GUILD_MESSAGES
MAX_QUESTION_CHARS = 4000
KEEP_SECONDS = 600.0  # how long a mention waits here for Redis to come back
RETRY_SECONDS = 2.0


def question_of(content: str, bot_id: str) -> str:
    """The message without the bot's own mention; other mentions stay as they are."""
    text = re.sub(rf"<@!?{re.escape(bot_id)}>", "", content or "")
    return " ".join(text.split())[:MAX_QUESTION_CHARS]


class Gateway:
    """The mention handler, separate from the connection so tests can drive it directly."""

    def __init__(self, settings: Settings, conn: redis.Redis) -> None:
        self.settings, self.conn = settings, conn

    def accept(self, *, message_id: str, channel_id: str, guild_id: str | None, author_id: str, content: str,
               bot_id: str) -> intake.Outcome | None:
        """Record and enqueue the mention's run; None when there is no question (a bare mention).
        Raises redis.RedisError when Redis is unreachable."""
        question = question_of(content, bot_id)
        if not question:
            return None
        follow_up = intake.in_atlas_thread(self.conn, channel_id)
        origin = Origin(kind="discord", user=author_id, channel=channel_id, team=guild_id, message_ts=message_id,
                        thread_ts=channel_id if follow_up else None)
        return intake.submit(self.conn, self.settings, kind="message", ident=message_id, question=question,
                             origin=origin, thread=channel_id if follow_up else None)

    async def on_message(self, event: hikari.GuildMessageCreateEvent) -> None:
        if not event.is_human:
            return  # bots (Atlas included) and webhooks never start a run
        me = event.app.get_me() if isinstance(event.app, hikari.GatewayBot) else None
        if me is None or me.id not in (event.message.user_mentions_ids or ()):
            return
        args = {"message_id": str(event.message_id), "channel_id": str(event.channel_id), "guild_id": str(event.guild_id),
                "author_id": str(event.author_id), "content": event.content or "", "bot_id": str(me.id)}
        loop = asyncio.get_running_loop()
        deadline = loop.time() + KEEP_SECONDS
        while True:
            try:
                outcome = await asyncio.to_thread(lambda: self.accept(**args))
                break
            except redis.RedisError as exc:
                if loop.time() > deadline:
                    log.error("mention %s dropped: Redis unreachable for %.0fs", args["message_id"], KEEP_SECONDS)
                    return
                log.warning("mention %s kept until Redis returns: %s", args["message_id"], type(exc).__name__)
                await asyncio.sleep(RETRY_SECONDS)
        if outcome is None:
            await event.message.respond(wording.EMPTY_QUESTION, reply=True, mentions_everyone=False, user_mentions=False,
                                        role_mentions=False, mentions_reply=False)


def build_bot(settings: Settings) -> hikari.GatewayBot:
    """The hikari bot with Atlas's intents and REST base URL, its mention listener attached."""
    if not settings.discord_bot_token:
        raise ConfigError("DISCORD_BOT_TOKEN is not set (the Bot page of your Discord application)")
    try:
        bot = hikari.GatewayBot(settings.discord_bot_token, intents=INTENTS, rest_url=settings.discord_api_url,
                                banner=None, logs=None, suppress_optimization_warning=True)
    except ValueError:
        raise ConfigError("DISCORD_BOT_TOKEN is not a bot token (copy it again from the Bot page)") from None
    bot.subscribe(hikari.GuildMessageCreateEvent, Gateway(settings, bot_redis(settings)).on_message)
    return bot


def run(settings: Settings) -> int:
    """Connect and serve until interrupted (SIGINT/SIGTERM close the connection cleanly)."""
    bot = build_bot(settings)
    log.warning("Atlas is connecting to Discord's Gateway")
    bot.run(check_for_updates=False, close_loop=True)
    return 0
