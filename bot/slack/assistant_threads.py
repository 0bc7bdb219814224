"""Threads of Slack's assistant view, and what the person was looking at, kept in Redis by Atlas.

Slack opens an assistant thread with `assistant_thread_started` and tells the app which channel the
person is viewing (its "context"), again with `assistant_thread_context_changed` each time they move.
The bot records both here; a worker reads them back when a question in that thread becomes a run:
whether to title the thread and show a status, and which channel to give the model as context.

Why not Bolt's default store: it keeps the context in the metadata of the bot's first reply and reads
it with `conversations.replies`, which Slack rate-limits hard (see workers/runs/conversations.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import redis

THREAD_TTL_SECONDS = 30 * 24 * 3600  # as long as a thread's turns are kept


@dataclass(frozen=True)
class AssistantThread:
    """One assistant thread: the channel the person was viewing last (if Slack said), and its team."""

    context_channel: str | None = None
    context_team: str | None = None


def thread_key(channel: str, thread_ts: str) -> str:
    return f"atlas:assistant-thread:{channel}:{thread_ts}"


def start(conn: redis.Redis, channel: str, thread_ts: str, context: dict[str, str] | None) -> bool:
    """Record a new assistant thread and its first context; False when it was already recorded
    (Slack retried the event), so the greeting is posted once."""
    value = json.dumps(_context(context))
    return bool(conn.set(thread_key(channel, thread_ts), value, nx=True, ex=THREAD_TTL_SECONDS))


def save_context(conn: redis.Redis, channel: str, thread_ts: str, context: dict[str, str] | None) -> None:
    """The person moved to another channel while the thread was open: remember the new one."""
    conn.set(thread_key(channel, thread_ts), json.dumps(_context(context)), ex=THREAD_TTL_SECONDS)


def find(conn: redis.Redis, channel: str, thread_ts: str) -> AssistantThread | None:
    """The assistant thread at (channel, thread_ts), or None for any other thread (a DM, a channel)."""
    raw = conn.get(thread_key(channel, thread_ts))
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return AssistantThread()
    if not isinstance(value, dict):
        return AssistantThread()
    return AssistantThread(context_channel=_str(value.get("channel_id")), context_team=_str(value.get("team_id")))


def _context(context: dict[str, str] | None) -> dict[str, str]:
    """Only the fields Slack documents for a thread's context."""
    context = context or {}
    return {k: str(context[k]) for k in ("channel_id", "team_id", "enterprise_id") if context.get(k)}


def _str(value: object) -> str | None:
    return str(value) if value else None
