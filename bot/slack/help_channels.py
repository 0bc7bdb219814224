"""Slack help channels (ATLAS_HELP_CHANNELS): a new top-level message is a run with no mention.

A listener in front of the mentions' one takes `message.channels` / `message.groups` events from a
help channel; every other event goes on to bot/slack/mentions.py as before (which drops channel
messages: those reach it as `app_mention`). Nothing outside the listed
channels is read. In a help channel:

- a top-level message by a person (no bot, no edit, deletion, join or other subtype) opens a help
  thread (workers/help/threads.py: once, within the channel's hourly limit) and is claimed, recorded
  and queued exactly as a mention is (bot/slack/intake.py: one run across Slack's retries);
- the asker's replies in that thread continue the conversation, unless a maintainer has replied there
  (then Atlas answers only when mentioned), or a run is still working (then they wait for it);
- a maintainer's reply (an approver, or ATLAS_HELP_MAINTAINERS) makes Atlas step back in the thread;
- a message that mentions Atlas is left to `app_mention`, as everywhere.

When Redis is unreachable the answer is 503 and Slack retries (a mention is spooled instead; a help
post that nobody asked Atlas about is not worth a disk write).
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from slack_bolt import App, BoltContext, BoltResponse

from bot import claims
from bot.slack.deps import Deps
from bot.slack.intake import NewRun
from bot.slack.mentions import (
    IGNORED_SUBTYPES_OK,
    MAX_QUESTION_CHARS,
    Message,
    answered_by_middleware,
    message_intake,
    spoken,
)
from bot.slack.views.help import held_text
from workers.approvals.approvers import Directory, Policy, SlackDirectory, standing
from workers.help import followups, threads
from workers.messages import help as help_note
from workers.runs import conversations
from workers.runs.state import Origin

log = logging.getLogger("atlas.bot.slack.help_channels")


def register(app: App, deps: Deps) -> None:
    """Before the mentions' listener: Bolt runs the first listener whose matcher matches, so a help
    channel's message is decided here and every other event reaches bot/slack/mentions.py as before."""
    channels = deps.settings.help.slack_channels
    if not channels:
        return
    directory = SlackDirectory(deps.client, deps.redis)

    def in_help_channel(body: dict[str, Any]) -> bool:
        event = body.get("event") or {}
        return event.get("channel") in channels and event.get("channel_type") != "im"

    def accept_help(body: dict[str, Any], context: BoltContext) -> BoltResponse:
        try:
            return decide(deps, directory, body, context.bot_user_id)
        except redis.RedisError as exc:
            log.warning("redis unreachable, help message %s not taken: %s", body.get("event_id"), type(exc).__name__)
            return BoltResponse(status=503, body="")

    app.event("message", matchers=[in_help_channel], middleware=[accept_help])(answered_by_middleware)


def human_message(body: dict[str, Any]) -> Message | None:
    """The person's message an event carries; None for bots, edits, deletions, joins and other subtypes."""
    event = body.get("event") or {}
    if event.get("bot_id") or event.get("bot_profile") or event.get("app_id"):
        return None
    subtype = event.get("subtype")
    if subtype and subtype not in IGNORED_SUBTYPES_OK:
        return None
    channel, user, ts = event.get("channel"), event.get("user"), event.get("ts")
    if not (channel and user and ts):
        return None
    return Message(
        team=body.get("team_id") or event.get("team"),
        channel=channel,
        user=user,
        ts=ts,
        thread_ts=event.get("thread_ts") or ts,
        text=event.get("text") or "",
        event_id=body.get("event_id"),
    )


def decide(deps: Deps, directory: Directory, body: dict[str, Any], bot_user_id: str | None) -> BoltResponse:
    """What a help channel's message starts: a run, a step back, or nothing. Raises redis.RedisError."""
    ok = BoltResponse(status=200, body="")
    message = human_message(body)
    if message is None:
        return ok
    mentioned = bool(bot_user_id) and f"<@{bot_user_id}" in message.text
    question = spoken(message.text, bot_user_id)[:MAX_QUESTION_CHARS]
    thread = threads.slack_thread(message.team, message.channel, message.thread_ts)
    limit = deps.settings.help.rate_per_hour
    if message.thread_ts == message.ts:  # a new post
        if mentioned or not question:
            return ok  # a mention is answered as one (app_mention)
        opened = threads.open_thread(
            deps.redis,
            thread,
            asker=message.user,
            channel=message.channel,
            post=message.ts,
            run_id=message.run_id,
            limit=limit,
            person_limit=deps.settings.help.person_per_hour,
        )
        if opened in threads.HELD:
            _held(deps, message, opened, "post")
            return ok
        return _take(deps, message, question)
    if mentioned or not question:  # the mention is answered as one; a maintainer's still takes the thread
        asker = threads.asker(deps.redis, thread)
        if asker is not None and asker != message.user:
            _step_back_if_maintainer(deps, directory, thread, message.user)
        return ok
    turns_key = conversations.thread_key(message.team, message.channel, message.thread_ts)
    followed = threads.follow(
        deps.redis,
        thread,
        user=message.user,
        channel=message.channel,
        message=message.ts,
        message_json=followups.waiting_message(question, message.ts, turns_key),
        run_id=message.run_id,
        limit=limit,
        person_limit=deps.settings.help.person_per_hour,
    )
    if followed == "other":
        _step_back_if_maintainer(deps, directory, thread, message.user)
    elif followed in threads.HELD:
        _held(deps, message, followed, "reply")
    elif followed == "joined":
        log.info("reply %s waits for the run working in thread %s", message.ts, message.thread_ts)
    elif followed == "follow":
        return _take(deps, message, question)
    return ok


def _held(deps: Deps, message: Message, outcome: str, what: str) -> None:
    """A limit held the message back: a log line, and the first time this hour for its author in that channel
    one note in its thread, after the ack (a note is a courtesy: a failure is logged, not retried)."""
    help_settings = deps.settings.help
    log.warning(
        "help channel %s: %s %s gets no run (%s; ATLAS_HELP_RATE %d, ATLAS_HELP_PERSON_RATE %d an hour)",
        message.channel,
        what,
        message.ts,
        "over ATLAS_HELP_RATE" if outcome != "held_person" else "over ATLAS_HELP_PERSON_RATE",
        help_settings.rate_per_hour,
        help_settings.person_per_hour,
    )
    held = help_note.held(
        outcome, person_per_hour=help_settings.person_per_hour, channel_per_hour=help_settings.rate_per_hour
    )
    if held is None:
        return
    note = held_text(held)

    def post() -> None:
        try:
            deps.create_client.chat_postMessage(
                channel=message.channel, thread_ts=message.thread_ts, text=note, unfurl_links=False, unfurl_media=False
            )
        except Exception:
            log.warning(
                "help channel %s: the note that a limit held %s back was not posted",
                message.channel,
                message.ts,
                exc_info=True,
            )

    deps.background.submit(post)


def _take(deps: Deps, message: Message, question: str) -> BoltResponse:
    """Claim, record and queue the message's run (one round trip, as a mention's), unprompted."""
    origin = Origin(
        kind="slack",
        user=message.user,
        channel=message.channel,
        thread_ts=message.thread_ts,
        message_ts=message.ts,
        team=message.team,
        unprompted=True,
    )
    claim = claims.message_claim(message.team, message.channel, message.ts, message.event_id)
    thread_key = conversations.thread_key(message.team, message.channel, message.thread_ts)
    outcome = message_intake(deps).take(claim, NewRun(question, origin), thread_key, message.run_id)
    return BoltResponse(status=503 if outcome == "in_flight" else 200, body="")


def _step_back_if_maintainer(deps: Deps, directory: Directory, thread: str, user: str) -> None:
    """A maintainer's reply: step back now when the settings say so, after the ack when Slack must be asked."""
    help_settings = deps.settings.help
    policy = Policy.from_settings(deps.settings)
    if user in help_settings.slack_users or standing(user, policy).granted:
        threads.step_back(deps.redis, thread, user)
        log.info("a maintainer (%s) replied in help thread %s: Atlas steps back", user, thread)
        return
    lookups = [*help_settings.slack_groups, *([policy.group] if policy.group else [])]
    if not lookups and policy.configured:
        return

    def ask_slack() -> None:
        try:
            member = any(user in directory.members(group) for group in lookups) or (
                not policy.configured and directory.is_admin(user)
            )
            if member and threads.step_back(deps.redis, thread, user):
                log.info("a maintainer (%s) replied in help thread %s: Atlas steps back", user, thread)
        except redis.RedisError as exc:
            log.warning("could not check whether %s is a maintainer: %s", user, type(exc).__name__)

    deps.background.submit(ask_slack)
