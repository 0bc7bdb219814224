"""The periodic sync starts triage for issues the webhook never brought (Redis was down, GitHub does not
redeliver): every issue opened since the inbox last saw one, through the same claim as the webhook
(claim.py), so each gets its one run whichever comes first.

"Since" is an issue number, not a time (GitHub numbers issues and pull requests in the order they are
opened; a clock on another machine or a stand-in's is no measure): the watermark is the highest number
the synced folder held when the inbox was first enabled (a worker starting with triage on, or the first
sync after), so the history before it never gets a card. Each catch-up starts the open issues above it
and moves it up to the highest number it has seen. Webhooks never move it: one delivered after another
was lost must not hide the lost one. The store keeps no author association, so an issue caught up here
is triaged whoever opened it (ATLAS_TRIAGE_SKIP_WRITERS applies to webhooks only).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import redis

from atlas.connection import text
from atlas.lua import run_script
from datasets.github.store import STATE, Store
from workers.new_issues import claim, digest
from workers.parts import WorkerParts
from workers.runs.state import Origin
from workers.runs.triage_record import TriageRecord

log = logging.getLogger("atlas.new_issues")
_RAISE = (
    "local got = tonumber(redis.call('GET', KEYS[1]) or '-1') "
    "if tonumber(ARGV[1]) > got then redis.call('SET', KEYS[1], ARGV[1]) return 1 end return 0"
)


def watermark_key(repo: str) -> str:
    return f"atlas:triage:watermark:{repo}"


def watermark(conn: redis.Redis, repo: str) -> int | None:
    """The highest issue number the inbox has accounted for; None before the inbox was first enabled."""
    raw = conn.get(watermark_key(repo))
    return int(text(raw)) if raw else None


def enable(conn: redis.Redis, repo: str, folder: Path) -> int | None:
    """Record the watermark once, when the inbox is first enabled: the highest number in the synced folder
    (none yet: left to the first sync). The watermark as it stands."""
    highest = _highest(folder)
    if highest is not None:
        conn.set(watermark_key(repo), str(highest), nx=True)
    return watermark(conn, repo)


def catch_up(rt: WorkerParts, repo: str, folder: Path) -> list[int]:
    """After a sync: start triage for the open issues opened since the watermark; the numbers started."""
    triage = rt.settings.triage
    if not triage.enabled:
        return []
    since = watermark(rt.conn, repo)
    if since is None:  # enabled only now: what the folder holds is history
        enable(rt.conn, repo, folder)
        return []
    store = Store(folder)
    try:
        rows = store.conn.execute(
            "SELECT number, is_pr, record FROM issues WHERE number > ? ORDER BY number", (since,)
        ).fetchall()
    finally:
        store.close()
    started: list[int] = []
    held = False
    # as the webhook's: one card, one platform, in the repository's channel
    origin = Origin(kind=triage.platform or "slack", channel=rt.settings.org.triage_channel(repo, triage.channel))
    for number, is_pr, raw in rows:
        issue = json.loads(raw)
        if is_pr or issue.get("state") != "open":
            continue
        record = TriageRecord(
            repo=repo,
            issue=int(number),
            title=str(issue.get("title") or ""),
            author=str(issue.get("author") or ""),
            url=issue.get("url"),
        )
        run_id, won = claim.start(
            rt.conn, rt.settings.queue_name, record, origin, rt.settings.fingerprint, limit=triage.rate
        )
        held = held or not run_id  # over ATLAS_TRIAGE_RATE: named in the channel's digest, as the webhook's are
        if won:
            log.warning("triage of #%s started by the sync (its webhook never arrived): run %s", number, run_id)
            started.append(int(number))
    if held:
        digest.tell(rt, claim.repo_scope(repo))
    if rows:
        run_script(rt.conn, _RAISE, [watermark_key(repo)], [max(int(r[0]) for r in rows)])
    return started


def _highest(folder: Path) -> int | None:
    if not (folder / STATE).exists():  # never synced: nothing to count, and no folder made here
        return None
    store = Store(folder)
    try:
        row = store.conn.execute("SELECT MAX(number) FROM issues").fetchone()
    finally:
        store.close()
    return int(row[0]) if row and row[0] is not None else None
