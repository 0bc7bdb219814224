"""The console bench's synthetic runs (bench/console.py): varied questions, platforms, channels, models and
outcomes as specs, each a RunState or its stored record, and the index's sets and daily figures filed in bulk
commands the way `index_filing.add` files one run."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from typing import Any

import redis

from workers.console_data import run_index
from workers.runs.state import AnsweredBy, Origin, RunState, StepRecord, Usage
from workers.runs.store import RUN_TTL_SECONDS, run_key

RUNS = 100_000
DAY = 86400
NOT_FOUND = "I could not find anything about this in the docs or the issue tracker."
TOPICS = [
    "retries",
    "webhooks",
    "rate limits",
    "the scheduler",
    "TLS certificates",
    "upgrades to 3.1",
    "the CLI",
    "metrics",
    "backups",
    "plugins",
]


def _spec(n: int, rng: random.Random, now: float) -> dict[str, Any]:
    """Run number `n` of the fill: what it asked, where, how it ended, what answered it."""
    topic = TOPICS[n % len(TOPICS)]
    return {
        "n": n,
        "topic": topic,
        "platform": "discord" if n % 10 < 3 else "slack",
        "status": rng.choices(["done", "partial", "failed", "expired", "awaiting_approval"], [85, 5, 4, 1, 5])[0],
        "question": f"How do {topic} work when {rng.choice(['scaling out', 'offline', 'under load'])}? (#{n})",
        "created_at": now - (RUNS - n) * (30 * DAY / RUNS),
        "model": "offline" if n % 5 < 2 else "gpt-6-luna",
        "answer": NOT_FOUND if n % 12 == 0 else f"About {topic}: see the docs.",
        "cost": 0.0 if n % 5 < 2 else 0.00024,
    }


def _run(spec: dict[str, Any]) -> RunState:
    """The run a worker would save."""
    n = spec["n"]
    run = RunState(
        question=spec["question"],
        status=spec["status"],
        origin=Origin(
            kind=spec["platform"],
            channel=f"C{n % 20:02d}",
            user=f"U{n % 300:03d}",
            team="T1",
            thread_ts=f"{1_700_000_000 + n}.000100",
        ),
        created_at=spec["created_at"],
    )
    run.items = [
        {
            "type": "function_call",
            "call_id": f"c{n}",
            "name": "search_docs",
            "arguments": f'{{"query": "{spec["topic"]}"}}',
        },
        {"type": "function_call_output", "call_id": f"c{n}", "output": f"{spec['topic']}.md: ... " * 30},
    ]
    run.steps = [StepRecord(index=1, tools=["search_docs"], input_tokens=900, output_tokens=30), StepRecord(index=2)]
    run.usage = Usage(input_tokens=1800, output_tokens=120)
    run.answer, run.cost_usd = spec["answer"], spec["cost"]
    run.answered_by = AnsweredBy(model=spec["model"], data_dir="datasets/orbit")
    return run


def _record(spec: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
    """The stored record of `_run(spec)` once finished, patched from one real record (building a RunState per run
    is most of a fill's time)."""
    n = spec["n"]
    return {
        **template,
        "id": f"{n:016x}",
        "question": spec["question"],
        "status": spec["status"],
        "answer": spec["answer"],
        "created_at": spec["created_at"],
        "updated_at": spec["created_at"] + 5,
        "cost_usd": spec["cost"],
        "origin": {
            **template["origin"],
            "kind": spec["platform"],
            "channel": f"C{n % 20:02d}",
            "user": f"U{n % 300:03d}",
            "thread_ts": f"{1_700_000_000 + n}.000100",
        },
        "answered_by": {**template["answered_by"], "model": spec["model"]},
    }


def bulk_records(conn: redis.Redis, records: list[dict[str, Any]]) -> None:
    pipe = conn.pipeline(transaction=False)
    for r in records:
        pipe.set(run_key(r["id"]), json.dumps(r), ex=RUN_TTL_SECONDS)
    pipe.execute()


def bulk_index(conn: redis.Redis, records: list[dict[str, Any]]) -> None:
    """File these records in the index's own sets and daily figures, with `run_index`'s key and gap functions
    (what `index_filing.add` writes, in bulk commands); the newest runs go through the real path (`fill`)."""
    sets: dict[str, dict[str, float]] = defaultdict(dict)
    days: dict[str, Counter[str]] = defaultdict(Counter)
    for r in records:
        origin, model, at = r["origin"], r["answered_by"]["model"], r["created_at"]
        gap = run_index.gap_of(r["status"], r["answer"])
        for key in (
            run_index.all_key(),
            run_index.facet_key("status", r["status"]),
            run_index.facet_key("platform", origin["kind"]),
            run_index.facet_key("channel", origin["channel"]),
            run_index.facet_key("model", model),
        ):
            sets[key][r["id"]] = at
        if gap:
            sets[run_index.gaps_key()][r["id"]] = at
        for facet, value in (("platform", origin["kind"]), ("channel", origin["channel"]), ("model", model)):
            sets[run_index.values_key(facet)][value] = at
        if r["status"] != "awaiting_approval":
            days[run_index.day_key(run_index.day_of(at))].update(
                runs=1,
                cost_micro=round(r["cost_usd"] * 1e6),
                tokens=1920,
                steps=2,
                offline=int(model == "offline"),
                answered=int(r["status"] == "done" and not gap),
                gaps=int(bool(gap)),
            )
    pipe = conn.pipeline(transaction=False)
    for key, members in sets.items():
        pipe.zadd(key, members)
    for key, counts in days.items():
        for name, value in counts.items():
            pipe.hincrby(key, name, value)
    pipe.execute()
