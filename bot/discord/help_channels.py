"""Discord help channels (ATLAS_DISCORD_HELP_CHANNELS): a new post is a run with no mention.

A help channel is a text channel (a new top-level message: Atlas answers in a thread started from
it, whose id is the message's) or a forum (a new post: its starter message has the thread's id and
sits in the thread, whose parent is the forum). Replies in such a thread by the asker continue the
conversation; a maintainer's reply (an approver: the configured ones, else the server's owner and
members with Manage Server; or a member of an ATLAS_HELP_MAINTAINERS role) makes Atlas step back there; a message that
mentions Atlas is answered as a mention (bot/discord/gateway.py). The rules and their Redis state are
workers/help/threads.py's; the run is claimed by its message id (bot/discord/intake.py), so a MESSAGE_CREATE replayed
after a RESUME starts no second run.

Nothing outside the listed channels is read: a message is looked at only when its channel is listed,
or its thread's parent is (from the Gateway's cache), or, the thread not being cached, Redis knows
the thread as a help thread.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

import redis

from atlas.settings import Settings
from bot.discord import intake
from bot.discord.rest import DiscordREST, rest_client
from bot.discord.threads import conversation_team
from bot.discord.views.help import held_content
from workers.help import followups, threads
from workers.messages import help as help_note
from workers.runs import conversations
from workers.runs.state import Origin

log = logging.getLogger("atlas.discord.help")

Outcome = Literal["ignored", "queued", "duplicate", "limited", "stepped_back", "waiting"]


@dataclass(frozen=True)
class HelpMessage:
    """A person's message as the help rules read it. `parent_id`: the channel's parent when the
    Gateway's cache knows the channel is a thread; "" when it knows it is not; None when unknown."""

    message_id: str
    channel_id: str
    parent_id: str | None
    guild_id: str | None
    author_id: str
    role_ids: frozenset[str]
    question: str  # the content without Atlas's mention (bot/discord/gateway.py `question_of`)
    mentioned: bool
    server_admin: bool = False  # the server's owner, or Manage Server / Administrator by a role


class HelpChannels:
    """The help rules for one `atlas discord` process."""

    def __init__(self, settings: Settings, conn: redis.Redis) -> None:
        self.settings, self.conn = settings, conn
        self._rest: DiscordREST | None = None
        self.channels = settings.help.discord_channels
        self.roles = settings.help.discord_roles | (
            {settings.discord_approver_role} if settings.discord_approver_role else set()
        )
        self.users = frozenset(settings.discord_approvers)
        self.admins_approve = not (
            settings.discord_approvers or settings.discord_approver_role
        )  # bot/discord/approvers.py

    def accept(self, m: HelpMessage) -> Outcome:
        """What the message starts. Raises redis.RedisError when Redis is unreachable."""
        if m.channel_id in self.channels:
            return self._post(m, forum=False, help_channel=m.channel_id)
        if m.parent_id in self.channels and m.message_id == m.channel_id:
            return self._post(m, forum=True, help_channel=m.parent_id)
        if m.parent_id is not None and m.parent_id not in self.channels:
            return "ignored"  # a channel or thread outside the help channels: not read
        return self._reply(m)

    def _post(self, m: HelpMessage, *, forum: bool, help_channel: str) -> Outcome:
        question = m.question
        if m.mentioned or not question:
            return "ignored"  # a mention is answered as one
        thread = threads.discord_thread(
            m.guild_id, m.message_id
        )  # a forum post's thread and a message's thread share its id
        opened = threads.open_thread(
            self.conn,
            thread,
            asker=m.author_id,
            channel=help_channel,
            post=m.message_id,
            run_id=intake.run_id_for("message", m.message_id),
            limit=self.settings.help.rate_per_hour,
            person_limit=self.settings.help.person_per_hour,
        )
        if opened in threads.HELD:
            return self._held(m, opened, help_channel, m.channel_id if forum else None)
        origin = Origin(
            kind="discord",
            user=m.author_id,
            channel=help_channel,
            team=m.guild_id,
            message_ts=m.message_id,
            thread_ts=m.channel_id if forum else None,
            unprompted=True,
        )
        return intake.submit(
            self.conn,
            self.settings,
            kind="message",
            ident=m.message_id,
            question=question,
            origin=origin,
            thread=m.channel_id if forum else None,
        )

    def _held(self, m: HelpMessage, outcome: str, channel: str, thread: str | None) -> Outcome:
        """A limit held the message back: a log line, and the first time this hour for its author in that channel one
        note, in its thread (a forum post's, a reply's) or as a reply to the post (never a ping: allowed_mentions is
        none). A note is a courtesy: a failure is logged, not retried."""
        help_settings = self.settings.help
        log.warning(
            "help channel %s: message %s gets no run (%s; ATLAS_HELP_RATE %d, ATLAS_HELP_PERSON_RATE %d an hour)",
            channel,
            m.message_id,
            "over ATLAS_HELP_PERSON_RATE" if outcome == "held_person" else "over ATLAS_HELP_RATE",
            help_settings.rate_per_hour,
            help_settings.person_per_hour,
        )
        held = help_note.held(
            outcome, person_per_hour=help_settings.person_per_hour, channel_per_hour=help_settings.rate_per_hour
        )
        if held is not None:
            note: dict[str, Any] = {"content": held_content(held)}
            if thread is None:
                note["message_reference"] = {"message_id": m.message_id, "fail_if_not_exists": False}
            try:
                self.rest().create_message(thread or m.channel_id, note)
            except Exception:
                log.warning(
                    "help channel %s: the note that a limit held %s back was not posted",
                    channel,
                    m.message_id,
                    exc_info=True,
                )
        return "limited"

    def rest(self) -> DiscordREST:
        """The REST client notes go through, made once."""
        if self._rest is None:
            self._rest = rest_client(self.settings)
        return self._rest

    def _reply(self, m: HelpMessage) -> Outcome:
        thread = threads.discord_thread(m.guild_id, m.channel_id)
        asker = threads.asker(self.conn, thread)
        if asker is None:
            return "ignored"
        if asker != m.author_id:
            if m.author_id in self.users or m.role_ids & self.roles or (self.admins_approve and m.server_admin):
                threads.step_back(self.conn, thread, m.author_id)
                log.info("a maintainer (%s) replied in help thread %s: Atlas steps back", m.author_id, m.channel_id)
                return "stepped_back"
            return "ignored"
        question = m.question
        if m.mentioned or not question:
            return "ignored"
        team = conversation_team(m.guild_id)
        channel = m.parent_id or threads.channel_of(self.conn, thread) or m.channel_id
        followed = threads.follow(
            self.conn,
            thread,
            user=m.author_id,
            channel=channel,
            message=m.message_id,
            message_json=followups.waiting_message(
                question, m.message_id, conversations.thread_key(team, m.channel_id, m.channel_id)
            ),
            run_id=intake.run_id_for("message", m.message_id),
            limit=self.settings.help.rate_per_hour,
            person_limit=self.settings.help.person_per_hour,
        )
        if followed in threads.HELD:
            return self._held(m, followed, channel, m.channel_id)
        if followed == "joined":
            return "waiting"
        if followed != "follow":
            return "stepped_back" if followed == "stepped_back" else "ignored"
        origin = Origin(
            kind="discord",
            user=m.author_id,
            channel=channel,
            team=m.guild_id,
            message_ts=m.message_id,
            thread_ts=m.channel_id,
            unprompted=True,
        )
        return intake.submit(
            self.conn,
            self.settings,
            kind="message",
            ident=m.message_id,
            question=question,
            origin=origin,
            thread=m.channel_id,
        )
