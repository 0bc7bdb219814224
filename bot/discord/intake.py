"""A Discord question becomes a run: claim it once, record the run, enqueue its job, in one go.

Used by the Gateway process (mentions: claimed by message id, so a MESSAGE_CREATE delivered twice,
e.g. replayed after a RESUME, starts one run) and by the interactions endpoint (`/atlas ask`:
claimed by interaction id, so a retried delivery of the same interaction starts one run). Run ids
are derived from those ids. The claim, the record and the job are the same Redis scripts and
transaction as Slack's (bot/claims.py, bot/slack/mentions.py).
"""

from __future__ import annotations

import hashlib
from typing import Literal

import redis
from rq import Queue

from atlas.settings import Settings
from bot import claims
from bot.discord.threads import conversation_team, thread_mark
from workers.runs import conversations
from workers.runs.job_names import CONTINUE_RUN
from workers.runs.queueing import job_options
from workers.runs.state import Origin, RunState, Turn
from workers.runs.store import RunStore, run_key
from workers.runs.surfaces import DiscordSurface

Outcome = Literal["queued", "duplicate"]


def run_id_for(kind: str, ident: str) -> str:
    """Deterministic: every delivery of one message or interaction names the same run."""
    return hashlib.sha256(f"discord:{kind}:{ident}".encode()).hexdigest()[:16]


def in_atlas_thread(conn: redis.Redis, channel_id: str) -> bool:
    """A mention in a thread Atlas answers in is a follow-up there."""
    return bool(conn.exists(thread_mark(channel_id)))


def submit(
    conn: redis.Redis,
    settings: Settings,
    *,
    kind: Literal["message", "interaction"],
    ident: str,
    question: str,
    origin: Origin,
    surface: DiscordSurface | None = None,
    thread: str | None = None,
) -> Outcome:
    """Claim `ident`, then record and enqueue its run on the settings' queue (with the thread's earlier
    turns when `thread` is given); the run carries the settings' fingerprint, so only a worker with the
    same settings answers it. Raises redis.RedisError when Redis is unreachable; nothing is claimed then."""
    claim = claims.Claim((f"atlas:claim:discord:{kind}:{ident}",))
    run_id = run_id_for(kind, ident)
    team = conversation_team(origin.team)
    turns_key = conversations.thread_key(team, thread, thread) if thread else f"atlas:thread:none:{run_id}"
    claimed = claims.claim(conn, claim, run_key=run_key(run_id), thread_key=turns_key)
    if claimed.outcome in ("duplicate", "in_flight"):
        return "duplicate"  # Discord does not redeliver on errors: the holder queues it
    pipe = conn.pipeline(transaction=True)
    if claimed.outcome == "claimed":
        history = [Turn.model_validate_json(raw) for raw in claimed.turns]
        run = RunState(
            id=run_id,
            question=question,
            origin=origin,
            history=history,
            surface=surface if surface is not None else DiscordSurface(),
            settings_fingerprint=settings.fingerprint,
            unfiled=True,
        )
        Queue(settings.queue_name, connection=conn).enqueue(
            CONTINUE_RUN,
            run.id,
            pipeline=pipe,
            **job_options(run.id, slack_outage_seconds=settings.slack_outage_seconds),
        )
        RunStore(pipe).save(run)
    claims.confirm(pipe, claim)
    try:
        pipe.execute()
    except redis.RedisError:
        claims.release(conn, claim)
        raise
    return "queued"
