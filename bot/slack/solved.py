"""A Slack thread marked solved: "Mark as answer" under an answer (anyone in the thread), or a maintainer's ✅
(`white_check_mark`, the `reaction_added` event) on an answer of Atlas's. Either claims the answer and queues its
one solved-thread run (workers/knowledge/solved_claim.py), whose card an approver decides.

Only public channels (`conversations.info`: a channel, not private, not a DM; if Slack does not say, no): a
private conversation's words never become a source others can search. The names Slack gives the asker and the
marker go with the run, so that the entry names neither. A reacted message is known as Atlas's answer by its
own buttons, whose value is its run id (read with `conversations.replies`).
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from slack_bolt import Ack, App
from slack_sdk.errors import SlackClientError

from bot.slack.deps import Deps
from bot.slack.ephemeral import tell
from bot.slack.participants import person
from bot.slack.views.answer import FILE_ISSUE_ACTION, MARK_ANSWER_ACTION
from workers.errors import RunNotFound
from workers.knowledge import solved_claim
from workers.messages.knowledge import SolvedClick
from workers.runs.solved_record import Marked
from workers.runs.state import RunState
from workers.runs.store import RunStore

log = logging.getLogger("atlas.bot.slack.solved")
SOLVED_REACTION = "white_check_mark"


def register(app: App, deps: Deps) -> None:
    app.action(MARK_ANSWER_ACTION)(on_click(deps))
    app.event("reaction_added")(on_reaction(deps))


def on_click(deps: Deps) -> Any:
    def handle_mark_answer(ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        ack()
        user = str((body.get("user") or {}).get("id") or "")
        channel = str((body.get("container") or {}).get("channel_id") or (body.get("channel") or {}).get("id") or "")
        said = mark(deps, str(action.get("value") or ""), channel, user, "button")
        if said is not None:
            tell(deps, body, user, said)

    return handle_mark_answer


def on_reaction(deps: Deps) -> Any:
    def handle_reaction(event: dict[str, Any]) -> None:
        item = event.get("item") or {}
        if event.get("reaction") != SOLVED_REACTION or item.get("type") != "message":
            return
        user, channel, ts = str(event.get("user") or ""), str(item.get("channel") or ""), str(item.get("ts") or "")
        if not maintainer(deps, user):
            return  # anyone may react ✅; only a maintainer's marks the thread solved
        run_id = answer_run(deps, channel, ts)
        if run_id:
            mark(deps, run_id, channel, user, "reaction")

    return handle_reaction


def mark(deps: Deps, run_id: str, channel: str, user: str, how: Marked) -> SolvedClick | None:
    """Start the answer's solved-thread run if it may be; what to tell the person (None: nothing)."""
    try:
        source = RunStore(deps.redis).load(run_id)
    except (RunNotFound, ValueError):
        return SolvedClick("nothing")
    except redis.RedisError as exc:
        log.warning("solved mark not recorded: %s", type(exc).__name__)
        return SolvedClick("unavailable")
    if source.origin.kind != "slack" or source.origin.channel != channel or not user:
        log.warning("solved mark by %s on run %s refused: not from the answer's channel", user, run_id[:40])
        return None
    if not public(deps, channel):
        log.info("solved mark by %s on run %s refused: %s is not a public channel", user, run_id, channel)
        return SolvedClick("private")
    try:
        run, started = solved_claim.start(
            deps.redis, deps.settings.queue_name, source, user, how, names(deps, source, user)
        )
    except redis.RedisError as exc:
        log.warning("solved mark not recorded: %s", type(exc).__name__)
        return SolvedClick("unavailable")
    log.info(
        "solved mark (%s) by %s on run %s: run %s %s",
        how,
        user,
        source.id,
        run,
        "started" if started else "already claimed",
    )
    return SolvedClick("started" if started else "already")


def public(deps: Deps, channel: str) -> bool:
    """Whether Slack says `channel` is a public channel (any doubt: no)."""
    try:
        info = deps.client.conversations_info(channel=channel).get("channel") or {}
    except SlackClientError as exc:
        log.warning("conversations.info for %s failed (%s): treated as not public", channel, type(exc).__name__)
        return False
    return bool(info.get("is_channel")) and not any(info.get(k) for k in ("is_private", "is_im", "is_mpim", "is_group"))


def maintainer(deps: Deps, user: str) -> bool:
    """A configured approver or help-channel maintainer; with none configured, a workspace admin or owner."""
    settings = deps.settings
    if user in settings.approvers or user in settings.help.slack_users:
        return True
    if settings.approvers:
        return False
    try:
        person = deps.client.users_info(user=user).get("user") or {}
    except SlackClientError:
        return False
    return bool(person.get("is_admin") or person.get("is_owner"))


def answer_run(deps: Deps, channel: str, ts: str) -> str:
    """The run id an answer of Atlas's carries on its buttons, '' when the message is no answer of Atlas's."""
    try:
        messages = (
            deps.client.conversations_replies(channel=channel, ts=ts, inclusive=True, limit=1).get("messages") or []
        )
    except SlackClientError as exc:
        log.warning("conversations.replies for a reaction failed (%s)", type(exc).__name__)
        return ""
    for message in messages:
        if message.get("ts") != ts:
            continue
        for block in message.get("blocks") or []:
            for element in block.get("elements") or [] if block.get("type") == "actions" else []:
                if element.get("action_id") in (MARK_ANSWER_ACTION, FILE_ISSUE_ACTION):
                    return str(element.get("value") or "")
    return ""


def names(deps: Deps, source: RunState, marker: str) -> list[str]:
    """How Slack names the asker and the marker (real and display names), so the entry can leave them out."""
    found = [
        n for user in dict.fromkeys(u for u in (source.origin.user, marker) if u) for n in person(deps.client, user)
    ]
    return list(dict.fromkeys(found))
