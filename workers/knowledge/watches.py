"""Which threads' answers cited which sources, and what each source was then; the notes posted about them.

Redis, no process memory:
- `atlas:watch:src:<source>`: a hash, thread key -> {place, channel, run, fingerprint, label, at}, kept for the watch
  window (ATLAS_ANSWER_WATCH_DAYS) from the last answer that cited it; an entry older than the window is skipped.
- `atlas:watch:sources`: a sorted set of watched sources by the time they were last cited (a check reads only these).
- `atlas:watch:sent:<source>:<thread>`: the one note of that source in that thread (claimed before it is posted).
- `atlas:watch:notes:<run>`: the notes posted in the thread of that run (`atlas runs show`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import redis

from atlas.connection import text
from workers.followup.subscriptions import place_of, thread_key
from workers.knowledge.cited import Cited
from workers.runs.state import Origin, RunState

SOURCES = "atlas:watch:sources"
NOTES_KEPT_SECONDS = 400 * 24 * 3600


@dataclass(frozen=True)
class Watch:
    """One thread's answer citing one source, as the source was then."""

    source: str
    place: Origin
    run_id: str
    fingerprint: str
    label: str
    at: float
    channel: str = ""  # the channel the question was asked in (a Discord thread's own id is its place's channel)

    @property
    def thread(self) -> str:
        return thread_key(self.place)


def source_key(source: str) -> str:
    return f"atlas:watch:src:{source}"


def sent_key(source: str, thread: str) -> str:
    return f"atlas:watch:sent:{source}:{thread}"


def notes_key(run_id: str) -> str:
    return f"atlas:watch:notes:{run_id}"


def record(conn: redis.Redis, run: RunState, sources: list[Cited], window_seconds: int) -> int:
    """Watch each source for the thread of `run` (a later answer in that thread replaces the earlier one's entry,
    what the source is now is what it saw); how many. Nothing for a run without a thread."""
    place = place_of(run)
    if place is None or not sources or window_seconds <= 0:
        return 0
    at = time.time()
    key = thread_key(place)
    asked_in = run.origin.channel or place.channel or ""
    channel = {"channel": asked_in} if asked_in != (place.channel or "") else {}  # else the place's own
    placed = place.model_dump(exclude_defaults=True)  # an entry per citing answer, kept the window: no nulls
    pipe = conn.pipeline(transaction=False)
    for item in sources:
        entry = json.dumps(
            {
                "place": placed,
                **channel,
                "run_id": run.id,
                "fingerprint": item.fingerprint,
                "label": item.label,
                "at": round(at, 3),
            },
            separators=(",", ":"),
        )
        pipe.hset(source_key(item.key), key, entry)
        pipe.expire(source_key(item.key), window_seconds)
        pipe.zadd(SOURCES, {item.key: at})
    pipe.execute()
    return len(sources)


def watched(
    conn: redis.Redis, window_seconds: int, kinds: tuple[str, ...] = ("doc", "file", "issue", "release")
) -> list[str]:
    """The sources some answer of the window cited, of these kinds; older ones are forgotten here."""
    cutoff = time.time() - window_seconds
    conn.zremrangebyscore(SOURCES, "-inf", cutoff)
    members = [text(m) for m in conn.zrangebyscore(SOURCES, cutoff, "+inf") if isinstance(m, (bytes, str))]
    return [s for s in members if s.split(":", 1)[0] in kinds]


def of_source(conn: redis.Redis, source: str, window_seconds: int) -> list[Watch]:
    """The threads watching `source`, answered within the window, oldest first."""
    cutoff = time.time() - window_seconds
    found = []
    for raw in conn.hvals(source_key(source)):
        entry = json.loads(text(raw))
        if float(entry.get("at") or 0) >= cutoff:
            found.append(
                Watch(
                    source,
                    Origin.model_validate(entry["place"]),
                    str(entry.get("run_id") or ""),
                    str(entry.get("fingerprint") or ""),
                    str(entry.get("label") or source),
                    float(entry["at"]),
                    str(entry.get("channel") or entry["place"].get("channel") or ""),
                )
            )
    return sorted(found, key=lambda w: w.at)


def forget(conn: redis.Redis, watch: Watch) -> None:
    """The thread no longer watches the source (told already, or its channel is gone)."""
    conn.hdel(source_key(watch.source), watch.thread)


def note_posted(conn: redis.Redis, watch: Watch, note: str, channel: str, message: str) -> None:
    """Keep the note for `atlas runs show` of the run whose answer it corrects."""
    entry = json.dumps(
        {
            "source": watch.source,
            "label": watch.label,
            "text": note,
            "at": time.time(),
            "channel": channel,
            "message": message,
        }
    )
    pipe = conn.pipeline(transaction=False)
    pipe.rpush(notes_key(watch.run_id), entry)
    pipe.expire(notes_key(watch.run_id), NOTES_KEPT_SECONDS)
    pipe.execute()


def notes_of(conn: redis.Redis, run_id: str) -> list[dict[str, str]]:
    """The notes posted about the sources of run `run_id`'s answer, oldest first."""
    return [json.loads(text(raw)) for raw in conn.lrange(notes_key(run_id), 0, -1)]
