"""The console's read model (issue 30): what its pages need, indexed as runs finish, so a page is a few
bounded reads (a sorted set's newest page, a handful of rows) and never a scan of the run records.

Written by `RunStore.save` when a run pauses for approval or ends (one script, one round trip) and by a
feedback vote (`vote_changed`). Per run: a row (the fields a list shows) and its tool results' previews
(a finished record keeps no outputs, workers/runs/store.py). Sorted sets by creation time: every run,
each filter value (platform, channel, status, answering model, feedback), and the coverage gaps. Per day:
counters for the cost and use page, counted once per run. Everything expires with the runs.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Literal

import redis

from atlas.connection import text
from atlas.lua import run_script
from workers import wording
from workers.runs.state import RunState

PREFIX = "atlas:console"
KEEP_SECONDS = 30 * 24 * 3600  # as long as run records are kept (RUN_TTL_SECONDS)
DAY_KEEP_SECONDS = 400 * 24 * 3600  # a year of daily figures
QUESTION_CHARS = 500
PREVIEW_CHARS = 400
ARGUMENT_CHARS = 600
FACETS = ("platform", "channel", "status", "model", "feedback")
STATUSES = ("awaiting_approval", "done", "partial", "failed", "expired")
Facet = Literal["platform", "channel", "status", "model", "feedback"]
# "handed off" joins these when a run records a hand-off to maintainers (help channels: not on main yet).
Gap = Literal["", "not_found", "unsure", "failed", "voted_down"]
# The offline model's "I don't know" phrases (workers/wording.py), as a gap's reason.
NOT_FOUND_STARTS = (wording.OFFLINE_NOTHING_FOUND, wording.OFFLINE_NOTHING_ABOUT.split("{")[0])
UNSURE_MARK = wording.OFFLINE_UNSURE.split("{")[0][-40:]


def all_key() -> str:
    return f"{PREFIX}:runs"


def facet_key(facet: str, value: str) -> str:
    return f"{PREFIX}:runs:{facet}:{value}"


def values_key(facet: str) -> str:
    """The values a filter has taken (its menu), by when last seen."""
    return f"{PREFIX}:values:{facet}"


def row_key(run_id: str) -> str:
    return f"{PREFIX}:row:{run_id}"


def previews_key(run_id: str) -> str:
    return f"{PREFIX}:previews:{run_id}"


def gaps_key() -> str:
    return f"{PREFIX}:gaps"


def day_key(day: str) -> str:
    return f"{PREFIX}:day:{day}"


def day_of(stamp: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(stamp))


@dataclass(frozen=True)
class Row:
    """One run as a list shows it (and filters it)."""

    id: str
    question: str
    platform: str
    channel: str
    team: str
    user: str
    thread: str
    status: str
    stop_reason: str
    model: str
    created_at: float
    updated_at: float
    cost_usd: float
    tokens: int
    steps: int
    gap: str
    up: int = 0
    down: int = 0

    @classmethod
    def of(cls, raw: bytes | str) -> Row:
        data = json.loads(raw)
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def gap_of(run: RunState) -> Gap:
    """Why a run is a coverage gap, from its outcome ("" when it answered)."""
    answer = (run.answer or "").strip()
    if run.status in ("failed", "expired") or not answer:
        return "failed" if run.final else ""
    if answer.startswith(NOT_FOUND_STARTS):
        return "not_found"
    if UNSURE_MARK in answer:
        return "unsure"
    return ""


def row_of(run: RunState) -> Row:
    origin = run.origin
    return Row(id=run.id, question=run.question[:QUESTION_CHARS], platform=origin.kind, channel=origin.channel or "",
               team=origin.team or "", user=origin.user or "", thread=origin.thread_ts or origin.message_ts or "",
               status=run.status, stop_reason=run.stop_reason or "", model=run.answered_by.model if run.answered_by else "",
               created_at=run.created_at, updated_at=run.updated_at, cost_usd=run.cost_usd, tokens=run.usage.total,
               steps=len(run.steps), gap=gap_of(run))


def previews_of(run: RunState) -> dict[str, str]:
    """Each tool call's result, cut to a preview; empty when the outputs are gone (a record loaded after it finished)."""
    out: dict[str, str] = {}
    for item in run.items:
        if item.get("type") != "function_call_output":
            continue
        output = item.get("output")
        shown = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        if shown != "(not kept once the run finished)":
            out[str(item.get("call_id"))] = shown[:PREVIEW_CHARS]
    return out


# KEYS: row, previews, counted, day, gaps, the status keys (len(STATUSES): left), then the keys it is filed
# under (every run, its status, its facets). ARGV: id, score, row json, previews json ("" keeps them), keep
# seconds, day keep seconds, now, final (1/0), cost micro-dollars, tokens, steps, offline (1/0), answered
# (1/0), number of status keys, then (menu key, value) pairs.
_ADD = """
local id, score, keep = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[5])
local row = cjson.decode(ARGV[3])
local old = redis.call('GET', KEYS[1])
if old then
  local was = cjson.decode(old)
  row['up'], row['down'] = was['up'] or 0, was['down'] or 0
end
if row['down'] > 0 and row['gap'] == '' then row['gap'] = 'voted_down' end
redis.call('SET', KEYS[1], cjson.encode(row), 'EX', keep)
if ARGV[4] ~= '' then redis.call('SET', KEYS[2], ARGV[4], 'EX', keep) end
local floor = tonumber(ARGV[7]) - keep
local last_status = 5 + tonumber(ARGV[14])
for i = 6, last_status do redis.call('ZREM', KEYS[i], id) end
for i = last_status + 1, #KEYS do
  redis.call('ZADD', KEYS[i], score, id)
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', floor)
  redis.call('EXPIRE', KEYS[i], keep)
end
if row['gap'] ~= '' then redis.call('ZADD', KEYS[5], score, id) else redis.call('ZREM', KEYS[5], id) end
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', floor)
redis.call('EXPIRE', KEYS[5], keep)
for i = 15, #ARGV, 2 do
  redis.call('ZADD', ARGV[i], tonumber(ARGV[7]), ARGV[i + 1])
  redis.call('EXPIRE', ARGV[i], keep)
end
if ARGV[8] == '1' and redis.call('SET', KEYS[3], '1', 'NX', 'EX', keep) then
  local counts = {runs = 1, cost_micro = ARGV[9], tokens = ARGV[10], steps = ARGV[11], offline = ARGV[12],
                  answered = ARGV[13], gaps = (row['gap'] ~= '' and 1 or 0)}
  for field, n in pairs(counts) do redis.call('HINCRBY', KEYS[4], field, tonumber(n)) end
  redis.call('EXPIRE', KEYS[4], tonumber(ARGV[6]))
end
return 1
"""


def add(conn: redis.Redis, run: RunState) -> None:
    """Index a run that paused or ended (idempotent: saving it again re-files it and counts it once)."""
    row = row_of(run)
    previews = previews_of(run)
    kept = {facet: value for facet, value in (("platform", row.platform), ("channel", row.channel), ("model", row.model))
            if value}
    keys = [row_key(run.id), previews_key(run.id), f"{PREFIX}:counted:{run.id}", day_key(day_of(run.created_at)),
            gaps_key(), *(facet_key("status", s) for s in STATUSES),
            all_key(), facet_key("status", row.status), *(facet_key(facet, value) for facet, value in kept.items())]
    menus: list[str] = []
    for facet, value in kept.items():
        menus += [values_key(facet), value]
    args: list[Any] = [run.id, run.created_at, json.dumps(row.__dict__), json.dumps(previews) if previews else "",
                       KEEP_SECONDS, DAY_KEEP_SECONDS, time.time(), int(run.final),
                       round(run.cost_usd * 1_000_000), row.tokens, row.steps, int(row.model == "offline"),
                       int(run.status == "done" and not row.gap), len(STATUSES), *menus]
    run_script(conn, _ADD, keys, args)


# KEYS: feedback hash, row, feedback:up, feedback:down, gaps, day prefix ("<prefix>:day:")
_VOTES = """
local up, down = 0, 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  if v == 'up' then up = up + 1 elseif v == 'down' then down = down + 1 end
end
local raw = redis.call('GET', KEYS[2])
if not raw then return 0 end
local row = cjson.decode(raw)
local day = KEYS[6] .. ARGV[1]
redis.call('HINCRBY', day, 'up', up - (row['up'] or 0))
redis.call('HINCRBY', day, 'down', down - (row['down'] or 0))
row['up'], row['down'] = up, down
if down > 0 and row['gap'] == '' then row['gap'] = 'voted_down' end
if down == 0 and row['gap'] == 'voted_down' then row['gap'] = '' end
redis.call('SET', KEYS[2], cjson.encode(row), 'KEEPTTL')
local score = row['created_at']
if up > 0 then redis.call('ZADD', KEYS[3], score, row['id']) else redis.call('ZREM', KEYS[3], row['id']) end
if down > 0 then redis.call('ZADD', KEYS[4], score, row['id']) else redis.call('ZREM', KEYS[4], row['id']) end
redis.call('EXPIRE', KEYS[3], ARGV[2])
redis.call('EXPIRE', KEYS[4], ARGV[2])
if row['gap'] ~= '' then redis.call('ZADD', KEYS[5], score, row['id']) else redis.call('ZREM', KEYS[5], row['id']) end
return 1
"""


def vote_changed(conn: redis.Redis, run_id: str, votes_key: str) -> None:
    """Re-read a run's votes (the hash `votes_key`) into its row, the feedback filters, the gaps and its day."""
    raw = conn.get(row_key(run_id))
    if raw is None:
        return  # not indexed (it never finished, or it expired): nothing to file
    day = day_of(float(json.loads(text(raw))["created_at"]))
    run_script(conn, _VOTES, [votes_key, row_key(run_id), facet_key("feedback", "up"), facet_key("feedback", "down"),
                              gaps_key(), f"{PREFIX}:day:"], [day, KEEP_SECONDS])
