"""The console's read model (issue 30): what its pages need, indexed as runs pause or end, so a page is a few
bounded reads (a sorted set's newest page, a handful of records) and never a scan of the run records.

Sorted sets of run ids by creation time: every run, each filter value (platform, channel, status, answering model,
feedback up or down) and the coverage gaps (the answer said it found nothing, was unsure, or the run failed; votes
down are their own set). A filter combination checks membership in the other sets (ZMSCORE), so nothing but ids is
kept per run besides the record itself (whose finished form keeps each tool result's start, workers/runs/store.py).
Per day: counters for the cost and use page, counted when a run first reaches a final status. Written from
`RunStore.save`'s filings, later and in batches (workers/console_data/index_filing.py), and by a feedback vote
(`vote_changed`); trimmed and expired with the runs. A gap run's question is also kept as a vector (`vector_key`,
written by a worker: workers/console_data/question_vectors.py), expiring when its entry here is trimmed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

import redis
from redis.typing import EncodableT

from atlas.lua import run_script
from workers import wording
from workers.runs.state import FINAL_STATUSES, RunState

PREFIX = "atlas:console"
KEEP_SECONDS = 30 * 24 * 3600  # as long as run records are kept (RUN_TTL_SECONDS)
DAY_KEEP_SECONDS = 400 * 24 * 3600  # a year of daily figures
STATUSES = ("awaiting_approval", "done", "partial", "failed", "expired")
FINAL = tuple(s for s in STATUSES if s in FINAL_STATUSES)
Facet = Literal["platform", "channel", "status", "model", "feedback"]
Gap = Literal["", "not_found", "unsure", "handed_off", "failed", "voted_down"]
# The offline model's "I don't know" phrases (workers/wording.py), as a gap's reason.
NOT_FOUND_STARTS = (wording.OFFLINE_NOTHING_FOUND, wording.OFFLINE_NOTHING_ABOUT.split("{")[0])
UNSURE_MARK = wording.OFFLINE_UNSURE.split("{")[0][-40:]
WANTED_KEPT = 300  # voted-down runs waiting for a worker to embed them: as many as the gaps page groups


def all_key() -> str:
    return f"{PREFIX}:runs"


def facet_key(facet: str, value: str) -> str:
    return f"{PREFIX}:runs:{facet}:{value}"


def values_key(facet: str) -> str:
    """The values a filter has taken (its menu), by when last seen."""
    return f"{PREFIX}:values:{facet}"


def gaps_key() -> str:
    """Runs whose answer is a gap (`gap_of`); runs voted down are `facet_key("feedback", "down")`."""
    return f"{PREFIX}:gaps"


def vector_key(run_id: str) -> str:
    """A gap run's question as its embedding (workers/console_data/question_vectors.py), expiring with its index
    entry."""
    return f"{PREFIX}:vector:{run_id}"


def wanted_key() -> str:
    """Runs voted down before a worker embedded their question (by creation time, at most WANTED_KEPT)."""
    return f"{PREFIX}:vectors:wanted"


def day_key(day: str) -> str:
    return f"{PREFIX}:day:{day}"


def day_of(stamp: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(stamp))


def gap_of(status: str, answer: str | None, handoff: str | None = None) -> Gap:
    """Why a run is a coverage gap, from how it ended ("" when it answered, or has not ended): a run that
    handed the question to maintainers (help channels, `RunState.handoff`) is one, whatever it wrote."""
    text = (answer or "").strip()
    if status in ("failed", "expired"):
        return "failed"
    if status not in FINAL_STATUSES:
        return ""
    if handoff is not None:
        return "handed_off"
    if not text:
        return "failed"
    if text.startswith(NOT_FOUND_STARTS):
        return "not_found"
    return "unsure" if UNSURE_MARK in text else ""


_STATUS_ORDER = (*FINAL, *(s for s in STATUSES if s not in FINAL))


@dataclass(frozen=True)
class Filing:
    """What filing a run writes, but the time it is written: a run saved again with an equal filing (a surface
    remembering its message) has nothing new to file (`RunStore.save`)."""

    keys: tuple[str, ...]
    head: tuple[EncodableT, ...]  # ARGV before `now`
    tail: tuple[EncodableT, ...]  # ARGV after it


def filing(run: RunState) -> Filing:
    """The run's filing: its keys, filters, gap and the day's counts it adds when it first ends."""
    origin = run.origin
    model = run.answered_by.model if run.answered_by else ""
    gap = gap_of(run.status, run.answer, run.handoff)
    kept = {
        facet: value
        for facet, value in (("platform", origin.kind), ("channel", origin.channel or ""), ("model", model))
        if value
    }
    keys = (
        day_key(day_of(run.created_at)),
        gaps_key(),
        *(facet_key("status", s) for s in _STATUS_ORDER),
        all_key(),
        *(facet_key(facet, value) for facet, value in kept.items()),
    )
    menus: list[EncodableT] = []
    for facet, value in kept.items():
        menus += [values_key(facet), value]
    counts = {
        "runs": 1,
        "cost_micro": round(run.cost_usd * 1_000_000),
        "tokens": run.usage.total,
        "steps": len(run.steps),
        "offline": int(model == "offline"),
        "answered": int(run.status == "done" and not gap),
        "gaps": int(bool(gap)),
    }
    day: list[EncodableT] = []
    for field, n in counts.items():
        if n:  # HINCRBY by 0 writes nothing a reader needs (bot/console/usage_page.py reads absent as 0)
            day += [field, n]
    return Filing(
        keys,
        (run.id, run.created_at),
        (
            KEEP_SECONDS,
            DAY_KEEP_SECONDS,
            int(run.final),
            int(bool(gap)),
            len(FINAL),
            len(_STATUS_ORDER),
            _STATUS_ORDER.index(run.status) + 1,
            len(kept),
            *menus,
            *day,
        ),
    )


# KEYS: the run's votes (a hash user -> up|down), every run, feedback:up, feedback:down, the run's vector, the
# runs wanting one. ARGV: id, keep seconds, how many runs may want a vector. A run voted down without a vector
# waits for a worker to embed its question (the web process has no model: workers/console_data/question_vectors.py).
_VOTES = """
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not score then return 0 end
local up, down = 0, 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  if v == 'up' then up = up + 1 elseif v == 'down' then down = down + 1 end
end
if up > 0 then redis.call('ZADD', KEYS[3], score, ARGV[1]) else redis.call('ZREM', KEYS[3], ARGV[1]) end
if down > 0 then redis.call('ZADD', KEYS[4], score, ARGV[1]) else redis.call('ZREM', KEYS[4], ARGV[1]) end
if down > 0 and redis.call('EXISTS', KEYS[5]) == 0 then
  redis.call('ZADD', KEYS[6], score, ARGV[1])
  redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -(tonumber(ARGV[3]) + 1))
  redis.call('EXPIRE', KEYS[6], ARGV[2])
end
redis.call('EXPIRE', KEYS[3], ARGV[2])
redis.call('EXPIRE', KEYS[4], ARGV[2])
return 1
"""


def vote_changed(conn: redis.Redis, run_id: str, votes_key: str) -> None:
    """Re-read a run's votes (the hash `votes_key`) into the feedback filters (a run not filed: nothing to do; the
    caller files what is pending first: workers/console_data/index_filing.py `flush`)."""
    run_script(
        conn,
        _VOTES,
        [
            votes_key,
            all_key(),
            facet_key("feedback", "up"),
            facet_key("feedback", "down"),
            vector_key(run_id),
            wanted_key(),
        ],
        [run_id, KEEP_SECONDS, WANTED_KEPT],
    )
