"""Slack's assistant view (the AI app's split view): greet a new thread, follow the person's context,
and turn each message in the thread into a run, exactly as a DM would.

Built on Bolt's `Assistant` middleware and its helpers (`say`, `set_suggested_prompts`,
`save_thread_context`). The thread's context lives in Redis (bot/slack/assistant_threads.py), where the
worker reads it back. A message in the thread goes through the same listener middleware as mentions
and DMs (bot/slack/mentions.py `accept`): claimed once, recorded and enqueued, then acknowledged, so one
event gives one answer. The thread's title and status are the worker's job (bot/slack/assistant_reporter.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import redis
from slack_bolt import App, Assistant, BoltRequest, BoltResponse, SaveThreadContext, Say, SetSuggestedPrompts
from slack_bolt.context.assistant.thread_context import AssistantThreadContext
from slack_bolt.context.assistant.thread_context_store.store import AssistantThreadContextStore
from slack_bolt.middleware.custom_middleware import CustomMiddleware
from slack_bolt.request.payload_utils import is_assistant_event, is_other_message_sub_event_in_assistant_thread
from slack_sdk.errors import SlackClientError

from bot.slack import assistant_threads
from bot.slack.deps import Deps
from bot.slack.mentions import accept, answered_by_middleware
from bot.slack.views.greeting import greeting_text, suggested_prompts
from workers.messages.greeting import Greeting

log = logging.getLogger("atlas.bot.slack.assistant")


class RedisThreadContextStore(AssistantThreadContextStore):
    """Bolt's thread-context store, kept in Redis rather than in a message's metadata."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn

    def save(self, *, channel_id: str, thread_ts: str, context: dict[str, str]) -> None:
        assistant_threads.save_context(self.conn, channel_id, thread_ts, context)

    def find(self, *, channel_id: str, thread_ts: str) -> AssistantThreadContext | None:
        thread = assistant_threads.find(self.conn, channel_id, thread_ts)
        if thread is None or not thread.context_channel:
            return None
        return AssistantThreadContext({"channel_id": thread.context_channel, "team_id": thread.context_team})


class ScopedAssistant(Assistant):
    """Bolt's `Assistant`, passed over at once by requests that are not about an assistant thread.

    Why: a global middleware runs on every request, and Bolt's `Assistant` tries each of its listeners'
    matchers with keyword injection before calling `next()`: 35-45 us of CPU on every mention, DM
    and click (a tenth of a mention's cost beyond a bare Bolt app's). Each listener's first matcher
    is one of Bolt's assistant predicates (checked by tests/bot/slack/test_assistant.py), so a body that
    none of them accepts, nor the "other message sub-event" check, would only have reached `next()`.
    """

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        if is_assistant_event(req.body) or is_other_message_sub_event_in_assistant_thread(req.body):
            return super().process(req=req, resp=resp, next=next)
        return next()


def build(deps: Deps) -> Assistant:
    """The assistant middleware with Atlas's listeners."""
    assistant = ScopedAssistant(
        thread_context_store=RedisThreadContextStore(deps.redis), logger=logging.getLogger("atlas.bolt")
    )

    @assistant.thread_started
    def greet(payload: dict[str, Any], say: Say, set_suggested_prompts: SetSuggestedPrompts) -> None:
        """A new thread: remember it and its context, then a greeting and the suggested prompts (once)."""
        thread = payload.get("assistant_thread") or {}
        channel, thread_ts = thread.get("channel_id"), thread.get("thread_ts")
        if not (channel and thread_ts):
            return
        try:
            if not assistant_threads.start(deps.redis, channel, thread_ts, thread.get("context")):
                return  # Slack redelivered the event: the thread is already greeted
        except redis.RedisError as exc:
            log.warning("assistant thread %s not recorded: %s", thread_ts, type(exc).__name__)
        try:
            greeting = Greeting(deps.settings.assistant_prompts)
            say(text=greeting_text(greeting))
            prompts = suggested_prompts(greeting)
            if prompts is not None:
                set_suggested_prompts(**prompts)
        except SlackClientError as exc:
            log.info("could not greet assistant thread %s: %s", thread_ts, type(exc).__name__)

    @assistant.thread_context_changed
    def follow_context(payload: dict[str, Any], save_thread_context: SaveThreadContext) -> None:
        """The person moved to another channel with the thread open: the next run gets the new one."""
        try:
            save_thread_context((payload.get("assistant_thread") or {}).get("context") or {})
        except redis.RedisError as exc:
            log.warning("assistant thread context not saved: %s", type(exc).__name__)

    # Bolt's Assistant takes Middleware objects here (App.event wraps plain functions itself).
    claim = CustomMiddleware(app_name="atlas", func=accept(deps), base_logger=logging.getLogger("atlas.bolt"))
    assistant.user_message(middleware=[claim])(answered_by_middleware)  # type: ignore[arg-type]  # a list of Middleware: what Bolt's Assistant accepts (its hint says one)
    return assistant


def register(app: App, deps: Deps) -> None:
    """Install the middleware; it runs before the app's `message` listeners and answers its own events."""
    app.assistant(build(deps))
