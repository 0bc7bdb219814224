"""Mentions in channels and messages in DMs: verify (Bolt), claim, record, enqueue, then ack.

The claim and the enqueue run in a listener middleware, before Bolt answers Slack, because the
answer depends on them: 200 once the run is queued (or was already), 503 when Redis refuses or a
twin delivery holds a pending claim, so Slack retries later and the retry is then answered. That is
one Redis round trip with a short timeout (bot/slack/intake.py); when Redis is unreachable the question
is kept on disk and queued when it returns. Everything slow (the "working" status,
notes) runs after the ack, on the bot's background pool.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any, Literal

import redis
from slack_bolt import App, BoltContext, BoltResponse
from slack_sdk.errors import SlackClientError

from bot import claims
from bot.slack.deps import Deps
from bot.slack.intake import Intake, NewRun
from bot.slack.spool import Drainer
from bot.slack.views.ephemeral import ephemeral_text
from bot.slack.views.intake_notes import intake_note_text
from bot.slack.views.status import status_args
from workers.errors import RunNotFound
from workers.messages.ephemeral import QuestionCut
from workers.messages.intake_notes import EmptyQuestion, KeptForLater, Unavailable
from workers.messages.status import Waiting
from workers.runs import conversations
from workers.runs.job_hash import JobTemplate
from workers.runs.state import Origin
from workers.runs.store import RunStore
from workers.runs.surfaces import SlackSurface

log = logging.getLogger("atlas.bot.slack.mentions")

STATUS_DELAY_SECONDS = (
    1.0  # a run not answered by then, and showing no progress message, gets the "looking into it" status
)
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

    @cached_property
    def run_id(self) -> str:
        """Deterministic: every delivery of this message names the same run (and so the same job).
        Kept: the ack reads it several times."""
        return hashlib.sha256(f"{self.team}:{self.channel}:{self.ts}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Accepted:
    message: Message
    question: str
    run_id: str | None  # None when there was no question to run
    cut: bool = False  # the question was longer than MAX_QUESTION_CHARS and only its start is asked


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


def spoken(text: str, bot_user_id: str | None) -> str:
    """The message without the bot's own mention (other people's stay), whitespace collapsed, uncut."""
    if bot_user_id:
        text = _MENTION.sub(lambda m: "" if m.group(1) == bot_user_id else m.group(0), text)
    return " ".join(text.split())


TakeOutcome = Literal["queued", "duplicate", "in_flight"]


def accept(deps: Deps) -> Callable[..., BoltResponse | None]:
    """Listener middleware: claim the message, record and enqueue its run, decide Slack's response."""
    intake = message_intake(deps)

    def accept_message(body: dict[str, Any], context: BoltContext) -> BoltResponse:
        message = parse(body)
        if message is None:
            return BoltResponse(status=200, body="")
        said = spoken(message.text, context.bot_user_id)
        question = said[:MAX_QUESTION_CHARS]
        try:
            outcome = take(deps, intake, message, question)
        except redis.RedisError as exc:
            log.warning("redis unreachable, event %s not enqueued: %s", message.event_id, type(exc).__name__)
            return keep_for_later(deps, message, question)
        except Exception:
            log.exception("enqueueing event %s failed", message.event_id)
            _note(deps, message, Unavailable())
            return BoltResponse(status=503, body="")
        if outcome == "in_flight":
            return BoltResponse(status=503, body="")  # a twin delivery holds the claim: Slack retries later
        if outcome == "queued":
            after_ack(
                deps,
                Accepted(message, question, message.run_id if question else None, cut=len(said) > MAX_QUESTION_CHARS),
            )
        return BoltResponse(status=200, body="")

    return accept_message


def take(deps: Deps, intake: Intake, message: Message, question: str) -> TakeOutcome:
    """Claim the message and, if it is ours, record and enqueue its run: one Redis round trip
    (bot/slack/intake.py). Raises redis.RedisError when Redis is unreachable; nothing is written then."""
    claim = claims.message_claim(message.team, message.channel, message.ts, message.event_id)
    return record_and_enqueue(deps, intake, claim, message, question)


def keep_for_later(deps: Deps, message: Message, question: str) -> BoltResponse:
    """Redis is down: keep the question on disk and acknowledge it; the drainer queues it when Redis
    returns. Only if the disk refuses too is Slack asked to retry (and the thread told to ask again)."""
    if not question or deps.spool is None:
        _note(deps, message, Unavailable())
        return BoltResponse(status=503, body="")
    try:
        deps.spool.put(message.run_id, {"message": asdict(message), "question": question})
    except OSError as exc:
        log.error("could not spool event %s: %s", message.event_id, exc)
        _note(deps, message, Unavailable())
        return BoltResponse(status=503, body="")
    if deps.drainer is not None:
        deps.drainer.poke()
    _note(deps, message, KeptForLater())
    return BoltResponse(status=200, body="")


def drain_one(deps: Deps, intake: Intake) -> Callable[[dict[str, Any]], bool]:
    """The drainer's `take`: a spooled question goes through the same claim and enqueue as a live one."""

    def take_spooled(record: dict[str, Any]) -> bool:
        message = Message(**record["message"])
        outcome = take(deps, intake, message, str(record["question"]))
        if outcome == "queued":
            log.warning("spooled question %s is queued now that Redis is back", message.run_id)
            after_ack(deps, Accepted(message, str(record["question"]), message.run_id))
        return outcome != "in_flight"

    return take_spooled


def record_and_enqueue(deps: Deps, intake: Intake, claim: claims.Claim, message: Message, question: str) -> TakeOutcome:
    """One script: the claim, the run record (with the thread's earlier turns), its job on the queue,
    the confirmed claim. All or nothing."""
    run = None
    if question:  # the record carries this process's settings fingerprint: a worker with other settings won't answer
        origin = Origin(
            kind="slack",
            user=message.user,
            channel=message.channel,
            thread_ts=message.thread_ts,
            message_ts=message.ts,
            team=message.team,
        )
        run = NewRun(question, origin)
    thread = conversations.thread_key(message.team, message.channel, message.thread_ts)
    return intake.take(claim, run, thread, message.run_id)


def message_intake(deps: Deps) -> Intake:
    """The one-round-trip intake, with this process's job template (its options follow the settings).
    One per process: mentions, DMs, assistant threads and the spool's drainer share its round trips."""
    if deps.intake is None:
        template = JobTemplate.build(
            deps.redis, deps.settings.queue_name, slack_outage_seconds=deps.settings.slack_outage_seconds
        )
        deps.intake = Intake(deps.redis, template, deps.settings.fingerprint)
    return deps.intake


def after_ack(deps: Deps, accepted: Accepted) -> None:
    """Schedule what follows the ack, off the request thread: a hint for an empty mention, or a
    "looking into it" status if the run is still unanswered after a short delay."""
    message = accepted.message
    if accepted.run_id is None:
        deps.background.submit(_post_hint, deps, message)
        return
    run_id = accepted.run_id
    if accepted.cut:
        deps.background.submit(_tell_cut, deps, message)
    assert deps.delayed is not None
    deps.delayed.call_later(STATUS_DELAY_SECONDS, lambda: show_status_if_waiting(deps, message, run_id))


def _post_hint(deps: Deps, message: Message) -> None:
    try:
        deps.create_client.chat_postMessage(
            channel=message.channel, thread_ts=message.thread_ts, text=intake_note_text(EmptyQuestion())
        )
    except SlackClientError as exc:
        log.info("could not post the hint for %s: %s", message.event_id, type(exc).__name__)


def _tell_cut(deps: Deps, message: Message) -> None:
    """Only the asker sees it: their question was cut, so the answer covers its start only."""
    try:
        deps.client.chat_postEphemeral(
            channel=message.channel,
            user=message.user,
            thread_ts=message.thread_ts,
            text=ephemeral_text(QuestionCut(MAX_QUESTION_CHARS)),
        )
    except SlackClientError as exc:
        log.info("could not tell %s the question was cut: %s", message.event_id, type(exc).__name__)


def show_status_if_waiting(deps: Deps, message: Message, run_id: str) -> None:
    """Still queued (every worker busy) or thinking (its first model call): say Atlas is on it. A run
    answered, paused, or showing its progress message (bot/slack/progress.py) needs no status."""
    try:
        run = RunStore(deps.redis).load(run_id)
        if run.status not in ("queued", "running") or SlackSurface.of(run).progress_open:
            return
        deps.client.assistant_threads_setStatus(
            channel_id=message.channel,
            thread_ts=message.thread_ts,
            **status_args(Waiting()),
        )
    except (redis.RedisError, RunNotFound, SlackClientError) as exc:
        log.info("no status for %s: %s", run_id, type(exc).__name__)


def _note(deps: Deps, message: Message, note: Unavailable | KeptForLater) -> None:
    """Tell the thread once, after the ack, why the question is not being worked on yet."""
    if not deps.first_note(f"{message.channel}:{message.ts}"):
        return
    text = intake_note_text(note)

    def post() -> None:
        try:
            deps.create_client.chat_postMessage(channel=message.channel, thread_ts=message.thread_ts, text=text)
        except SlackClientError as exc:
            log.warning("could not post the unavailable note: %s", type(exc).__name__)

    deps.background.submit(post)


def register(app: App, deps: Deps) -> None:
    """Mentions in channels and all DM messages; `parse` drops what must not start a run.

    `accept` answers Slack itself and never calls `next()`: the hot path stays on the request thread,
    with no hop through Bolt's listener pool. The listener is only the anchor Bolt matches events on.
    """
    if deps.spool is not None and deps.drainer is None:
        deps.drainer = Drainer(
            deps.spool, drain_one(deps, message_intake(deps)), cap_seconds=deps.settings.redis_retry_cap_seconds
        ).start()
    app.event("app_mention", middleware=[accept(deps)])(answered_by_middleware)
    app.event("message", middleware=[accept(deps)])(answered_by_middleware)


def answered_by_middleware() -> None:
    """Never runs: `accept` returns Slack's response for every app_mention and message event."""
