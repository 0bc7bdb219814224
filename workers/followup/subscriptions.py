"""Threads subscribed to issues: a thread Atlas filed an issue from (after an approver's click) or linked to
one ("this is #123") hears once when that issue is closed or a release mentions it (notices.py).

Redis, no process memory: `atlas:subs:issue:{tracker}#{n}` (a hash: thread key -> the thread's place, the
run, how it was linked) and `atlas:subs:thread:{thread key}` (a set of `{tracker}#{n}`), both kept
SUBSCRIPTION_TTL_SECONDS (refreshed on each new link), so they outlive restarts and months of quiet.
`tracker` is the GitHub repository (`owner/name`) or `demo` for the demo tracker.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import redis

from atlas.connection import text
from workers.runs.state import Origin, RunState
from workers.runs.surfaces import DiscordSurface

if TYPE_CHECKING:
    from atlas.settings import Settings

log = logging.getLogger("atlas.followup")

SUBSCRIPTION_TTL_SECONDS = 400 * 24 * 3600  # an issue may take a year to close; a release longer still
How = Literal["filed", "linked"]


@dataclass(frozen=True)
class Subscription:
    """One thread following one issue."""

    tracker: str
    number: int
    # kind, team, channel, thread_ts: where the thread is (on Discord, channel = thread_ts = the thread's id)
    place: Origin
    run_id: str
    how: How
    at: float

    @property
    def thread(self) -> str:
        return thread_key(self.place)


def tracker_name(settings: Settings) -> str:
    """Which tracker issue numbers belong to: the GitHub repository, else the demo tracker."""
    return settings.github.repo if settings.github is not None else "demo"


def issue_key(tracker: str, number: int) -> str:
    return f"atlas:subs:issue:{tracker}#{number}"


def thread_key(place: Origin) -> str:
    return f"{place.kind}:{place.team or '-'}:{place.channel or '-'}:{place.thread_ts or '-'}"


def _thread_set(place: Origin) -> str:
    return f"atlas:subs:thread:{thread_key(place)}"


def place_of(run: RunState) -> Origin | None:
    """Where a run's thread is, as a notice must reach it; None for a run with no thread (the CLI)."""
    origin = run.origin
    if origin.kind == "discord":
        surface = run.surface
        thread = (
            (surface.thread_id if isinstance(surface, DiscordSurface) else None) or origin.thread_ts or origin.channel
        )
        return Origin(kind="discord", team=origin.team, channel=thread, thread_ts=thread) if thread else None
    if origin.kind == "slack" and origin.channel:
        thread = origin.thread_ts or origin.message_ts
        return Origin(kind="slack", team=origin.team, channel=origin.channel, thread_ts=thread) if thread else None
    return None


def subscribe(conn: redis.Redis, tracker: str, number: int, place: Origin, run_id: str, how: How) -> bool:
    """Subscribe the thread at `place` to issue `number`; True when it was not subscribed yet."""
    entry = json.dumps({"place": place.model_dump(), "run_id": run_id, "how": how, "at": time.time()})
    key = thread_key(place)
    pipe = conn.pipeline(transaction=True)
    pipe.hsetnx(issue_key(tracker, number), key, entry)
    pipe.expire(issue_key(tracker, number), SUBSCRIPTION_TTL_SECONDS)
    pipe.sadd(_thread_set(place), f"{tracker}#{number}")
    pipe.expire(_thread_set(place), SUBSCRIPTION_TTL_SECONDS)
    new = bool(pipe.execute()[0])
    if new:
        log.info("thread %s subscribed to %s#%s (%s, run %s)", key, tracker, number, how, run_id)
    return new


def for_issue(conn: redis.Redis, tracker: str, number: int) -> list[Subscription]:
    """Every thread following issue `number`."""
    found = []
    for raw in conn.hvals(issue_key(tracker, number)):
        entry = json.loads(text(raw))
        found.append(
            Subscription(
                tracker,
                number,
                Origin.model_validate(entry["place"]),
                str(entry.get("run_id") or ""),
                entry.get("how") or "linked",
                float(entry.get("at") or 0),
            )
        )
    return sorted(found, key=lambda s: s.at)


def for_thread(conn: redis.Redis, place: Origin) -> list[tuple[str, int]]:
    """The issues a thread follows, as (tracker, number), by number."""
    issues = []
    for raw in conn.smembers(_thread_set(place)):
        tracker, _, number = text(raw).rpartition("#")
        if number.isdigit():
            issues.append((tracker, int(number)))
    return sorted(issues, key=lambda x: (x[0], x[1]))


def of_run(conn: redis.Redis, run: RunState) -> list[tuple[str, int]]:
    """The issues the thread of `run` follows (for `atlas runs show`)."""
    place = place_of(run)
    return for_thread(conn, place) if place is not None else []


def drop(conn: redis.Redis, subscription: Subscription) -> None:
    """Forget a thread's subscription to one issue (its channel is gone, or Atlas was removed from it)."""
    pipe = conn.pipeline(transaction=True)
    pipe.hdel(issue_key(subscription.tracker, subscription.number), subscription.thread)
    pipe.srem(_thread_set(subscription.place), f"{subscription.tracker}#{subscription.number}")
    pipe.execute()
