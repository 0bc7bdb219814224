"""Where a run's Discord messages go, and posting them there: the post half of going out (render is
bot/discord/views/).

A `/atlas ask` run posts as follow-up messages of its interaction while the token lives (15 minutes), after that
as bot messages. A token can die sooner (the ack reached Discord after its 3 seconds): Discord's 404/10015
(Unknown Webhook) or 401/50027 (Invalid Webhook Token) marks it dead, and from then on, retries included, the run
speaks in the channel as the bot. A mention's run speaks in a thread started from the mentioning message
(bot/discord/threads.py), a follow-up's in the thread it was asked in.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from bot.discord import threads
from bot.discord.rest import DiscordError, DiscordREST
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordInteraction, DiscordSurface, PostedVia

log = logging.getLogger("atlas.discord.surface")

TOKEN_LIFETIME_SECONDS = 14 * 60  # Discord's interaction tokens last 15 minutes
DEAD_TOKEN = {(404, 10015), (401, 50027)}  # Unknown Webhook, Invalid Webhook Token


class Poster:
    """Creates, edits and deletes a run's messages where the run speaks; remembers a dead token (saved)."""

    def __init__(self, rest: DiscordREST, store: RunStore) -> None:
        self.rest, self.store = rest, store

    def interaction(self, run: RunState) -> DiscordInteraction | None:
        """The slash command's webhook (application id, token) while its token is alive."""
        hook = DiscordSurface.of(run).interaction
        if hook is not None and hook.token and time.time() - hook.at < TOKEN_LIFETIME_SECONDS:
            return hook
        return None

    def webhook(self, run: RunState, call: Callable[[DiscordInteraction], Any]) -> Any:
        """`call` with the interaction's webhook while its token lives; None when there is none or
        Discord says it died (then the caller speaks in the channel)."""
        hook = self.interaction(run)
        if hook is None:
            return None
        try:
            return call(hook)
        except DiscordError as exc:
            if not self._token_dead(run, exc):
                raise
            return None

    def _token_dead(self, run: RunState, exc: DiscordError) -> bool:
        """True when Discord says the interaction's token no longer works; it is then forgotten (saved)."""
        surface = DiscordSurface.of(run)
        if (exc.status, exc.code) not in DEAD_TOKEN or surface.interaction is None:
            return False
        log.info("run %s: the interaction's token no longer works (%s); answering in the channel", run.id, exc.code)
        surface.interaction = surface.interaction.model_copy(update={"token": "", "at": 0.0})
        self.store.save(run)
        return True

    def channel(self, run: RunState) -> str:
        """The channel or thread the run speaks in; a mention's thread is started on first use (threads.py)."""
        return threads.channel_for(self.rest, self.store, run)

    def create(self, run: RunState, payload: dict[str, Any]) -> tuple[str, PostedVia]:
        """Post a message where the run speaks: (message id, how), how being "webhook" or "channel"."""
        posted = self.webhook(run, lambda hook: self.rest.followup(hook.app, hook.token, payload))
        if posted is not None:
            return str(posted["id"]), "webhook"
        channel = self.channel(run)
        reply_to = DiscordSurface.of(run).reply_to
        if reply_to:
            payload = {**payload, "message_reference": {"message_id": reply_to, "fail_if_not_exists": False}}
        return str(self.rest.create_message(channel, payload)["id"]), "channel"

    def create_in_channel(self, run: RunState, payload: dict[str, Any]) -> str:
        """Post as the bot where the run speaks, never through the webhook: the message's id."""
        return str(self.rest.create_message(self.channel(run), payload)["id"])

    def edit(self, run: RunState, message_id: str, how: PostedVia, payload: dict[str, Any]) -> None:
        if how == "webhook":  # once the token is gone, the message stays as it was
            self.webhook(run, lambda hook: self.rest.edit_followup(hook.app, hook.token, message_id, payload))
            return
        self.rest.edit_message(self.channel(run), message_id, payload)

    def delete(self, run: RunState, message_id: str, how: PostedVia) -> None:
        """Delete a message of the run's; one already gone (404, Unknown Message: a retried job's, a moderator's)
        is fine."""
        try:
            if how == "webhook":  # once the token is gone, the message stays as it was
                self.webhook(run, lambda hook: self.rest.delete_followup(hook.app, hook.token, message_id))
            else:
                self.rest.delete_message(self.channel(run), message_id)
        except DiscordError as exc:
            if exc.status != 404:
                raise
