""" "Mark as answer" under a Discord answer: the thread is solved, so claim the answer and queue its one
solved-thread run (workers/knowledge/solved_claim.py), answered with a note only the clicker sees. Only in a
server's public channels and threads: a DM, a group DM or a private thread (channel types 1, 3, 12, as the
interaction's `channel` says) is refused. A click from another channel or thread than the answer's changes nothing."""

from __future__ import annotations

import logging
from typing import Any

import redis

from bot.discord.replies import Reply, ephemeral
from bot.discord.views.knowledge import solved_click_text
from workers.errors import RunNotFound
from workers.followup.subscriptions import place_of
from workers.knowledge import solved_claim
from workers.messages.knowledge import SolvedClick
from workers.runs.store import RunStore

log = logging.getLogger("atlas.bot.discord.solved")
NOT_PUBLIC = frozenset({1, 3, 12})  # DM, GROUP_DM, PRIVATE_THREAD


def click(conn: redis.Redis, queue_name: str, payload: dict[str, Any], run_id: str) -> Reply:
    """The interaction's reply; Redis errors are the caller's (it answers them as every click)."""
    member = payload.get("member") or {}
    user = member.get("user") or payload.get("user") or {}
    try:
        source = RunStore(conn).load(run_id)
    except (RunNotFound, ValueError):
        return ephemeral(solved_click_text(SolvedClick("nothing")))
    place = place_of(source)
    if (
        source.origin.kind != "discord"
        or place is None
        or str(payload.get("channel_id") or "") not in (place.channel, source.origin.channel)
    ):
        log.warning("solved mark by %s on run %s refused: not from the answer's thread", user.get("id"), run_id[:40])
        return ephemeral(solved_click_text(SolvedClick("nothing")))
    if not public(payload):
        log.info("solved mark by %s on run %s refused: not a public channel", user.get("id"), run_id)
        return ephemeral(solved_click_text(SolvedClick("private")))
    names = [str(v) for v in (user.get("username"), user.get("global_name"), member.get("nick")) if v]
    run, started = solved_claim.start(conn, queue_name, source, str(user.get("id") or ""), "button", names)
    log.info(
        "solved mark by %s on run %s: run %s %s",
        user.get("id"),
        source.id,
        run,
        "started" if started else "already claimed",
    )
    return ephemeral(solved_click_text(SolvedClick("started" if started else "already")))


def public(payload: dict[str, Any]) -> bool:
    """A server's channel or thread that is not private (no server: a DM)."""
    channel = payload.get("channel") or {}
    return bool(payload.get("guild_id")) and channel.get("type") not in NOT_PUBLIC
