"""What maintainers decided about triage, kept per repository (issue 36 item 4): the outcomes calibration learns
from and `atlas triage report` measures the live precision with.

An outcome says whether a label, or a duplicate claim, fits an issue in the maintainers' view, and how that was
learnt: a decision on a triage card (`card`), a label a maintainer added or removed after triage (`maintainer`),
a duplicate closed by hand (`maintainer`), a reopening of an issue Atlas closed (`reopened`), an Undo (`undo`).
A drafted reply's fate is kept too (kind `reply`: accepted when posted as drafted), for the report only: `load`
gives calibration the label and duplicate outcomes.

Kept in Redis as one list per repository, newest first, bounded to `MAX_OUTCOMES`. Each is recorded once by its
event's key (the approval's pending id, the webhook delivery), whatever retries a job makes: one script checks
the key, pushes and trims. Recorded with its worker's queue, a label or duplicate outcome also counts toward the
repository's next recalibration (issue 36 item 2): the same script adds it to the count since the last calibration
and, at recalibration.DECISIONS_EVERY, sets the count back to zero and answers "due", so of a burst of decisions
exactly one recorder queues the job (recalibration.ask, itself once while one is queued).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import redis

from atlas.connection import text
from atlas.lua import run_script
from workers.triage import recalibration

Kind = Literal["label", "duplicate", "reply"]
Source = Literal["card", "maintainer", "reopened", "undo"]
MAX_OUTCOMES = 10_000  # per repository: years of decisions on a busy one, a few MB at most
TTL_SECONDS = 400 * 24 * 3600  # refreshed by every outcome: a quiet year loses nothing
CALIBRATING: frozenset[str] = frozenset({"label", "duplicate"})

# KEYS: the once-key, the list, the count since the last calibration. ARGV: the outcome JSON, the bound, the ttl,
# the count that makes a recalibration due (0: not counted). Answers 0 (recorded before), 1 (new), 2 (new and due).
_RECORD = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', tonumber(ARGV[3])) == false then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
local every = tonumber(ARGV[4])
if every <= 0 then return 1 end
if redis.call('INCR', KEYS[3]) < every then
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]))
  return 1
end
redis.call('DEL', KEYS[3])
return 2
"""


@dataclass(frozen=True)
class Outcome:
    """One maintainers' verdict: `value` (a label, or the original's number for a duplicate) fits `issue` or not."""

    issue: int
    kind: Kind
    value: str
    accepted: bool
    source: str
    at: datetime

    def as_json(self) -> dict[str, object]:
        return {
            "issue": self.issue,
            "kind": self.kind,
            "value": self.value,
            "accepted": self.accepted,
            "source": self.source,
            "at": self.at.astimezone(UTC).isoformat(),
        }


def list_key(repo: str) -> str:
    return f"atlas:triage:outcomes:{repo}"


def _once_key(repo: str, key: str) -> str:
    return f"atlas:triage:outcome-once:{repo}:{key}"


def record(conn: redis.Redis, repo: str, outcome: Outcome, key: str, queue: str | None = None) -> bool:
    """Keep `outcome` for `repo` once per `key` (what caused it, unique); False when that key was recorded.
    `queue`: the worker's RQ queue, on which a label or duplicate outcome that makes DECISIONS_EVERY since the last
    calibration queues the repository's recalibration (None: not counted, as by a command or a test)."""
    payload = json.dumps(outcome.as_json())
    every = recalibration.DECISIONS_EVERY if queue is not None and outcome.kind in CALIBRATING else 0
    keys = [_once_key(repo, key), list_key(repo), recalibration.decisions_key(repo)]
    done = int(run_script(conn, _RECORD, keys, [payload, MAX_OUTCOMES, TTL_SECONDS, every]))
    if done == 2 and queue is not None:
        recalibration.ask(conn, queue, repo)
    return done > 0


def now() -> datetime:
    return datetime.now(UTC)


def load(conn: redis.Redis, repo: str) -> list[Outcome]:
    """The label and duplicate outcomes of `repo`, oldest first: what calibration may learn from."""
    return [o for o in load_all(conn, repo) if o.kind in CALIBRATING]


def load_all(conn: redis.Redis, repo: str, since: datetime | None = None) -> list[Outcome]:
    """Every outcome of `repo` (replies too), oldest first; only those at or after `since` when given."""
    found: list[Outcome] = []
    for raw in reversed(conn.lrange(list_key(repo), 0, -1)):
        parsed = _parse(text(raw))
        if parsed is not None and (since is None or parsed.at >= since):
            found.append(parsed)
    return found


def _parse(raw: str) -> Outcome | None:
    """One stored outcome; None for one this version cannot read (kept, never fatal)."""
    try:
        data = json.loads(raw)
        kind = data["kind"]
        if kind not in ("label", "duplicate", "reply"):
            return None
        at = datetime.fromisoformat(str(data["at"]))
        return Outcome(
            issue=int(data["issue"]),
            kind=kind,
            value=str(data["value"]),
            accepted=bool(data["accepted"]),
            source=str(data["source"]),
            at=at if at.tzinfo else at.replace(tzinfo=UTC),
        )
    except (ValueError, KeyError, TypeError):
        return None
