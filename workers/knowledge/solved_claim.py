"""The web process's half of a solved thread: claim the answer and queue its one solved-thread run.

As a filing is claimed (workers/followup/filing_claim.py): the answer (by its run) and the run record in one
script, so a second mark (a ✅ after the button, a redelivered event) starts nothing. The platform checks first
that the thread is in a public channel and that whoever marked it may (bot/slack/solved.py, bot/discord/solved.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import redis

from workers.followup import subscriptions as subs
from workers.new_issues.claim import claim_run
from workers.runs.solved_record import Marked, SolvedRecord
from workers.runs.state import Origin, RunState
from workers.runs.store import RUN_TTL_SECONDS


def last_answer_key(place: Origin) -> str:
    return f"atlas:solved:last-answer:{subs.thread_key(place)}"


def remember_answer(conn: redis.Redis, run: RunState) -> None:
    """The thread's latest answer, so a thread marked solved without naming an answer (a Discord forum post's tag,
    bot/discord/forum_solved.py) finds the one that solved it; kept as long as runs are. A Slack mark always names
    its answer (the button's or the reaction's message), so a Slack answer writes nothing (issue 40: a command)."""
    place = subs.place_of(run)
    if (
        place is not None
        and place.kind == "discord"
        and run.answer
        and run.triage is None
        and run.filing is None
        and run.solved is None
    ):
        conn.set(last_answer_key(place), run.id, ex=RUN_TTL_SECONDS)


def answer_in(conn: redis.Redis, place: Origin) -> str:
    """The run id of the thread's latest answer, '' when Atlas answered nothing there."""
    raw = conn.get(last_answer_key(place))
    return raw.decode() if isinstance(raw, bytes) else str(raw or "")


def claim_key(source_run: str) -> str:
    return f"atlas:solved:{source_run}"


def start(
    conn: redis.Redis, queue_name: str, source: RunState, marker: str, marked: Marked, names: Iterable[str] = ()
) -> tuple[str, bool]:
    """Claim the answer of `source` and queue its solved-thread run; (run id, whether this call started it)."""
    place = subs.place_of(source)
    if place is None:
        raise ValueError(f"run {source.id} has no thread")
    origin = Origin(
        kind=place.kind,
        user=marker,
        channel=source.origin.channel if place.kind == "slack" else place.channel,
        thread_ts=place.thread_ts,
        message_ts=place.thread_ts,
        team=place.team,
    )
    run = RunState(
        id=f"solved-{uuid.uuid4().hex[:12]}",
        question=f"keep the thread of run {source.id} as knowledge",
        origin=origin,
        solved=SolvedRecord(source_run=source.id, marked=marked, names=[n for n in names if n]),
    )
    return claim_run(conn, queue_name, claim_key(source.id), run, RUN_TTL_SECONDS)
