"""Mentions in channels and messages in DMs: verify (Bolt), claim, record, enqueue, then ack.

The claim and the enqueue run in a listener middleware, before Bolt answers Slack, because the
answer depends on them: 200 once the run is queued (or was already), 503 when Redis is unreachable
or a twin delivery is still in flight, so Slack retries later and the retry is then answered. These
are a few Redis commands with short timeouts. Everything slow (the "working" status, notes) runs
after the ack: in the listener, which Bolt runs on its pool once it has acknowledged the event.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from rq import Queue
from slack_bolt import App, BoltContext, BoltResponse
from slack_sdk.errors import SlackClientError

from bot import claims, wording
from bot.deps import Deps
from workers import conversations
from workers.queueing import enqueue, submit
from workers.runs import RunNotFound, RunStore
from workers.state import Origin

log = logging.getLogger("atlas.bot.mentions")

ACCEPTED = "atlas_accepted"  # context key: what the middleware did, for the listener after the ack
MAX_QUESTION_CHARS = 4000
IGNORED_SUBTYPES_OK: frozenset[str] = frozenset({"file_share", "thread_broadcast"})
_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")


@dataclass(frozen=True)
class Message:
    """One user message that asks Atlas something, as the event describes it."""

    team: str | None
    channel: str
    user: str
    ts: str
    thread_ts: str
    text: str
    event_id: str | None

    @property
    def run_id(self) -> str:
        """Deterministic: every delivery of this message names the same run (and so the same job)."""
        return hashlib.sha256(f"{self.team}:{self.channel}:{self.ts}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Accepted:
    message: Message
    question: str
    run_id: str | None  # None when there was no question to run


def parse(body: dict[str, Any]) -> Message | None:
    """The message an event carries, or None when it must not start a run (bots, edits, joins...)."""
    event = body.get("event") or {}
    if event.get("bot_id") or event.get("bot_profile") or event.get("subtype") == "bot_message":
        return None
    subtype = event.get("subtype")
    if subtype and subtype not in IGNORED_SUBTYPES_OK:
        return None
    if event.get("type") == "message" and event.get("channel_type") != "im":
        return None  # channel messages reach us only as app_mention
    channel, user, ts = event.get("channel"), event.get("user"), event.get("ts")
    if not (channel and user and ts):
        return None
    team = body.get("team_id") or event.get("team")
    return Message(
        team=team,
        channel=channel,
        user=user,
        ts=ts,
        thread_ts=event.get("thread_ts") or ts,
        text=event.get("text") or "",
        event_id=body.get("event_id"),
    )


def question_of(text: str, bot_user_id: str | None) -> str:
    """The message without the bot's own mention; other people's mentions stay as they are."""
    if bot_user_id:
        text = _MENTION.sub(lambda m: "" if m.group(1) == bot_user_id else m.group(0), text)
    return " ".join(text.split())[:MAX_QUESTION_CHARS]


def accept(deps: Deps) -> Callable[..., BoltResponse | None]:
    """Listener middleware: claim the message, record and enqueue its run, decide Slack's response."""

    def accept_message(body: dict[str, Any], context: BoltContext, next: Callable[[], None]) -> BoltResponse | None:
        message = parse(body)
        if message is None:
            return BoltResponse(status=200, body="")
        claim = claims.message_claim(message.team, message.channel, message.ts, message.event_id)
        try:
            outcome = claims.claim(deps.redis, claim)
        except redis.RedisError as exc:
            log.warning("redis unreachable, event %s not claimed: %s", message.event_id, type(exc).__name__)
            _note_unavailable(deps, message)
            return BoltResponse(status=503, body="")
        if outcome == "duplicate":
            return BoltResponse(status=200, body="")
        if outcome == "in_flight":
            return BoltResponse(status=503, body="")
        question = question_of(message.text, context.bot_user_id)
        try:
            run_id = _enqueue(deps, message, question) if question else None
        except Exception as exc:
            if not isinstance(exc, redis.RedisError):
                log.exception("enqueueing event %s failed", message.event_id)
            claims.release(deps.redis, claim)
            _note_unavailable(deps, message)
            return BoltResponse(status=503, body="")
        try:
            claims.confirm(deps.redis, claim)
        except redis.RedisError:
            pass  # queued already; a retry re-claims after the pending claim expires and finds the run
        context[ACCEPTED] = Accepted(message, question, run_id)
        next()
        return None

    return accept_message


def _enqueue(deps: Deps, message: Message, question: str) -> str:
    """Record and queue the run once, whatever happened to earlier deliveries of this message."""
    run_id = message.run_id
    store = RunStore(deps.redis)
    try:
        run = store.load(run_id)
    except RunNotFound:
        history = conversations.turns(deps.redis, message.team, message.channel, message.thread_ts)
        origin = Origin(
            kind="slack",
            user=message.user,
            channel=message.channel,
            thread_ts=message.thread_ts,
            message_ts=message.ts,
            team=message.team,
        )
        submit(deps.redis, deps.settings.queue_name, question, origin, history, run_id=run_id)
        return run_id
    if run.status == "queued":  # recorded by a delivery that died before enqueueing: the job id is unique
        enqueue(Queue(deps.settings.queue_name, connection=deps.redis), run_id)
    return run_id


def after_ack(deps: Deps) -> Callable[..., None]:
    """The listener: runs on Bolt's pool after the ack; shows that Atlas is working."""

    def on_message(context: BoltContext) -> None:
        accepted: Accepted | None = context.get(ACCEPTED)
        if accepted is None:
            return
        message = accepted.message
        try:
            if accepted.run_id is None:
                deps.create_client.chat_postMessage(
                    channel=message.channel, thread_ts=message.thread_ts, text=wording.EMPTY_QUESTION
                )
                return
            deps.client.assistant_threads_setStatus(
                channel_id=message.channel,
                thread_ts=message.thread_ts,
                status=wording.WORKING_STATUS,
                loading_messages=wording.LOADING_MESSAGES,
            )
        except SlackClientError as exc:
            log.info("could not show status for %s: %s", message.event_id, type(exc).__name__)

    return on_message


def _note_unavailable(deps: Deps, message: Message) -> None:
    """Tell the thread once, after the ack, that questions can't be taken right now."""
    if not deps.first_note(f"{message.channel}:{message.ts}"):
        return

    def post() -> None:
        try:
            deps.create_client.chat_postMessage(channel=message.channel, thread_ts=message.thread_ts, text=wording.UNAVAILABLE)
        except SlackClientError as exc:
            log.warning("could not post the unavailable note: %s", type(exc).__name__)

    deps.background.submit(post)


def register(app: App, deps: Deps) -> None:
    """Mentions in channels and all DM messages; `parse` drops what must not start a run."""
    app.event("app_mention", middleware=[accept(deps)])(after_ack(deps))
    app.event("message", middleware=[accept(deps)])(after_ack(deps))
