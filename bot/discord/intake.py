"""A Discord question becomes a run: claim it once, record the run, enqueue its job, in one go.

Used by the Gateway process (mentions: claimed by message id, so a MESSAGE_CREATE delivered twice,
e.g. replayed after a RESUME, starts one run) and by the interactions endpoint (`/atlas ask`:
claimed by interaction id, so a retried delivery of the same interaction starts one run). Run ids
are derived from those ids. One script claims, records and queues, so an ack waits on Redis once and
nothing is ever half-taken; its claim rules are bot/claims.py's, and the job is RQ's own hash
(workers/runs/job_hash.py), as Slack's intake writes them.
"""

from __future__ import annotations

import hashlib
from typing import Literal, cast

import redis

from atlas.connection import text
from atlas.lua import run_script
from atlas.settings import Settings
from bot.claims import CONFIRMED_TTL_SECONDS, ENQUEUED
from bot.discord.threads import conversation_team, thread_mark
from workers.runs import conversations
from workers.runs.job_hash import JobTemplate
from workers.runs.state import Origin, RunState
from workers.runs.store import RUN_TTL_SECONDS, run_key
from workers.runs.surfaces import DiscordSurface

Outcome = Literal["queued", "duplicate"]
_HISTORY = '"history":[]'  # where the script splices the thread's earlier turns into the record

# KEYS: the claim keys (n), the run key, the thread's turns key, the job key, the queue key, RQ's set of queues.
# ARGV: n, the confirmed marker, its TTL, the run record before and after its history, the run TTL, the job id,
# then the job hash's fields and values. A claim held (confirmed, or pending: a two-step claim in flight) is a
# duplicate, since Discord does not redeliver on errors; a run recorded already is only confirmed.
_TAKE = """
local n = tonumber(ARGV[1])
for i = 1, n do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 'duplicate' end
end
if redis.call('EXISTS', KEYS[n + 1]) == 0 then
  local turns = redis.call('LRANGE', KEYS[n + 2], 0, -1)
  local record = ARGV[4] .. '"history":[' .. table.concat(turns, ',') .. ']' .. ARGV[5]
  redis.call('SET', KEYS[n + 1], record, 'EX', ARGV[6])
  redis.call('SADD', KEYS[n + 5], KEYS[n + 4])
  redis.call('HSET', KEYS[n + 3], unpack(ARGV, 8))
  redis.call('RPUSH', KEYS[n + 4], ARGV[7])
end
for i = 1, n do
  redis.call('SET', KEYS[i], ARGV[2], 'EX', ARGV[3])
end
return 'queued'
"""
_templates: dict[tuple[str, float], JobTemplate] = {}  # one per queue and job timeout: RQ builds it once


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
    """Claim `ident`, record its run (with the thread's earlier turns when `thread` is given) and queue its job
    on the settings' queue, in one round trip; the run carries the settings' fingerprint, so only a worker with the
    same settings answers it. Raises redis.RedisError when Redis is unreachable; nothing is claimed then."""
    run_id = run_id_for(kind, ident)
    turns_key = conversations.thread_key(conversation_team(origin.team), thread, thread) if thread else ""
    run = RunState(
        id=run_id,
        question=question,
        origin=origin,
        surface=surface if surface is not None else DiscordSurface(),
        settings_fingerprint=settings.fingerprint,
        unfiled=True,
    )
    before, _, after = run.model_dump_json().partition(_HISTORY)  # no text holds it: a string's quotes are escaped
    template = _template(conn, settings)
    keys = [
        f"atlas:claim:discord:{kind}:{ident}",
        run_key(run_id),
        turns_key or f"atlas:thread:none:{run_id}",
        template.job_key(run_id),
        template.queue_key,
        template.queues_key,
    ]
    job = template.job_id(run_id)
    args: list[bytes | str | int] = [1, ENQUEUED, CONFIRMED_TTL_SECONDS, before, after, RUN_TTL_SECONDS, job]
    reply = run_script(conn, _TAKE, keys, [*args, *template.fields_for(run_id)])
    return cast(Outcome, text(reply))  # the script returns one of the outcomes


def _template(conn: redis.Redis, settings: Settings) -> JobTemplate:
    key = (settings.queue_name, settings.slack_outage_seconds)
    if key not in _templates:
        _templates[key] = JobTemplate.build(conn, key[0], slack_outage_seconds=key[1])
    return _templates[key]
