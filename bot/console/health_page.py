"""The Health page: queues, workers and their heartbeats, runs stuck or waiting, the spool, the last sync
and webhook deliveries, Redis memory. Every read is bounded by the number of queues, workers or a page."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import redis
from rq import Queue, Worker

from atlas.connection import text
from atlas.settings import Settings
from bot.console.layout import table, when
from bot.console.web import Request, esc
from bot.github import deliveries
from workers.approvals import audit
from workers.console_data import run_index

SHOWN = 20
SPOOL_COUNT_MAX = 10_000
AUDIT_READ = 5000  # the newest audit entries searched for actions in doubt


def _queues(conn: redis.Redis) -> str:
    rows = []
    for queue in Queue.all(connection=conn)[:SHOWN]:
        counts = [queue.count] + [
            r.get_job_count(cleanup=False)
            for r in (
                queue.started_job_registry,
                queue.scheduled_job_registry,
                queue.deferred_job_registry,
                queue.failed_job_registry,
            )
        ]
        rows.append([esc(queue.name), *(esc(n) for n in counts)])
    return (
        table(["Queue", "Waiting", "Working", "Scheduled", "Deferred", "Failed"], rows, frozenset({1, 2, 3, 4, 5}))
        if rows
        else "<p class=muted>No queue yet.</p>"
    )


def _workers(conn: redis.Redis, settings: Settings) -> str:
    rows = []
    now = time.time()
    for worker in Worker.all(connection=conn)[:100]:
        beat = worker.last_heartbeat.timestamp() if worker.last_heartbeat else None
        late = beat is None or now - beat > 2 * settings.worker_heartbeat_ttl
        age = f"{now - beat:.0f} s ago" if beat else "never"
        rows.append(
            [
                esc(worker.name),
                esc(worker.get_state()),
                esc(", ".join(worker.queue_names())),
                f'<span class="tag {"bad" if late else "good"}">{esc(age)}</span>',
                esc(worker.get_current_job_id() or ""),
            ]
        )
    return (
        table(["Worker", "State", "Queues", "Heartbeat", "Job"], rows)
        if rows
        else '<p class="tag bad">No worker is running: questions wait in the queue until one starts (atlas worker).</p>'
    )


def _stuck(conn: redis.Redis, settings: Settings, prefix: str) -> str:
    """Jobs whose worker stopped renewing them (RQ's started registry, scored by expiry) and runs paused."""
    queue = Queue(settings.queue_name, connection=conn)
    key = queue.started_job_registry.key
    lapsed: list[tuple[bytes, float]] = conn.zrangebyscore(
        key, "-inf", time.time(), start=0, num=SHOWN, withscores=True
    )  # type: ignore[assignment]  # bytes replies
    waiting = int(conn.zcard(run_index.facet_key("status", "awaiting_approval")))
    failed = queue.failed_job_registry.get_job_ids(0, SHOWN - 1, desc=True, cleanup=False)
    doubts = audit.entries(
        conn,
        limit=SHOWN,
        where=lambda e: e.kind == "result" and e.get("decision") == "in_doubt",
        read_at_most=AUDIT_READ,
    )
    out = f"<p>{waiting} runs waiting for an approval.</p>"
    if doubts:
        out += "<p>Approved actions in doubt (they may or may not have happened; never retried):</p>" + table(
            ["When", "Action", "Arguments", "Run"],
            [
                [
                    esc(when(e.at)),
                    esc(e.get("tool")),
                    esc(e.get("arguments")[:200]),
                    f'<a href="{prefix}/runs/{esc(e.get("run"))}">{esc(e.get("run"))}</a>',
                ]
                for e in doubts
            ],
        )
    else:
        out += "<p class=muted>No approved action is in doubt.</p>"
    if lapsed:
        out += "<p>Jobs whose worker stopped renewing them (taken over at the next maintenance):</p>" + table(
            ["Job", "Expired"], [[esc(text(m)), esc(when(s))] for m, s in lapsed]
        )
    else:
        out += "<p class=muted>No job has outlived its worker.</p>"
    if failed:
        out += "<p>Latest failed jobs:</p><ul>" + "".join(f"<li>{esc(j)}</li>" for j in failed) + "</ul>"
    return out


def _spool(settings: Settings) -> str:
    folder = Path(settings.home) / "spool"
    count = 0
    if folder.is_dir():
        with os.scandir(folder) as entries:
            for entry in entries:
                count += entry.name.endswith(".json")
                if count >= SPOOL_COUNT_MAX:
                    break
    note = "kept on this machine while Redis was down, sent when it returns" if count else "empty"
    return f"<p>{count} questions in the spool ({esc(note)}).</p>"


def _sync(settings: Settings, conn: redis.Redis) -> str:
    folder = settings.github.folder(settings.home) if settings.github else settings.data_dir
    issues = Path(folder) / "issues" / "issues.jsonl"
    stamp = issues.stat().st_mtime if issues.is_file() else None
    out = (
        f"<p>Issues last written: {esc(when(stamp) or 'never')} "
        f"({esc(settings.github.repo if settings.github else 'the demo data')}).</p>"
    )
    seen = deliveries.recent(conn)
    if seen:
        out += table(
            ["Delivery", "Event", "Answer", "When"],
            [[esc(d.get("id")), esc(d.get("event")), esc(d.get("outcome")), esc(when(d.get("at")))] for d in seen],
        )
    else:
        out += "<p class=muted>No GitHub webhook delivery yet.</p>"
    return out


def _memory(conn: redis.Redis) -> str:
    info: dict[str, Any] = conn.info("memory")
    used, peak, limit = info.get("used_memory_human"), info.get("used_memory_peak_human"), info.get("maxmemory_human")
    policy = info.get("maxmemory_policy")
    return (
        f"<p>Used {esc(used)} (peak {esc(peak)}); limit {esc(limit if limit not in ('0B', None) else 'none')}, "
        f"policy {esc(policy)}.</p>"
    )


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    body = (
        "<h1>Health</h1><h2>Queues</h2>"
        + _queues(conn)
        + "<h2>Workers</h2>"
        + _workers(conn, settings)
        + "<h2>Runs stuck, waiting or in doubt</h2>"
        + _stuck(conn, settings, prefix)
        + "<h2>Spool</h2>"
        + _spool(settings)
        + "<h2>Sync and webhooks</h2>"
        + _sync(settings, conn)
        + "<h2>Redis memory</h2>"
        + _memory(conn)
    )
    return "Health", body
