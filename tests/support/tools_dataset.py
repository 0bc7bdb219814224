"""A small Orbit-like data folder (docs/ and issues/issues.jsonl) written into a temp dir for tool tests."""

from __future__ import annotations

import json
from pathlib import Path

from datasets import derived

ERROR_CODES = """---
title: Error codes
applies_to: "3.x"
---
# Error codes

Every error Orbit logs carries a code of the form `ORB-xxxx`.

## ORB-1101 LeaseExpired

A job's lease ran out before it finished: no heartbeat within `lease_seconds`. The job may run twice.

## ORB-1201 RetriesExhausted

The job failed `max_attempts` times and moved to the dead-letter queue.

## ORB-1202 PermanentError

The job raised `orbit.PermanentError`; it is not retried.

## ORB-1402 BrokerConnectionLost

An established broker connection dropped; the worker reconnects with backoff.
"""

RETRIES = """---
title: Retries and backoff
applies_to: "3.x"
---
# Retries and backoff

Orbit retries failed jobs automatically. A job that raises ORB-1202 is never retried.

## Global policy: `[retries]`

```toml
[retries]
max_attempts = 3
# not a heading: a comment in a code block
## also not a heading
```

## Backoff strategies

Exponential backoff doubles the delay after every attempt, up to `max_backoff_seconds`.

### Jitter

Jitter spreads retries so that workers do not retry in lockstep.

## Permanent errors

Raise `orbit.PermanentError` (ORB-1202) for failures that retrying cannot fix.
"""

LEASES = (
    """---
title: Leases and heartbeats
applies_to: "3.x"
---
# Leases and heartbeats

Leases make sure a job whose worker died is picked up again.

## lease_seconds

The lease lasts `lease_seconds` (default 60). Raise it for CPU-bound jobs.

## Heartbeats

Every `heartbeat_seconds` the worker renews the lease.

## A very long section

"""
    + "\n".join(f"Line {i}: heartbeats renew leases; this sentence pads the section to be long." for i in range(40))
    + """

### Tail notes

The last subsection, far beyond the cut.
"""
)

ISSUES = [
    {
        "id": 1,
        "title": "Cron job ran twice on DST change",
        "body": "Our nightly job ran twice when clocks went back. timezone Europe/Berlin.",
        "state": "closed",
        "labels": ["type:bug", "comp:cron-scheduling", "version:2.9.4"],
    },
    {
        "id": 2,
        "title": "Jobs run twice after the autumn DST switch",
        "body": "Same as before: a 02:30 job ran twice at the DST change.",
        "state": "closed",
        "duplicate_of": 1,
        "labels": ["type:bug", "comp:cron-scheduling"],
    },
    {
        "id": 3,
        "title": "Reconnect storm after Redis failover on 3.1.0",
        "body": "All workers reconnect at once, ORB-1402 floods the logs, Redis CPU 100%.",
        "state": "open",
        "labels": ["type:bug", "comp:redis-broker", "version:3.1.0"],
    },
    {
        "id": 4,
        "title": "PermanentError not retried",
        "body": "My job raises ORB-1202 and lands in the dead-letter queue right away. Is that expected?",
        "state": "closed",
        "labels": ["type:question", "comp:retries-and-backoff"],
    },
    {
        "id": 5,
        "title": "Retries exhausted too early",
        "body": "ORB-1201 after two attempts; also saw ORB-1203 once.",
        "state": "open",
        "labels": ["type:bug", "version:3.0.1"],
    },
    {
        "id": 6,
        "title": "Lease expired on CPU-bound job",
        "body": "ORB-1101 LeaseExpired. I set lease_seconds = 120 and it still happens.",
        "state": "open",
        "labels": ["type:bug", "comp:leases-and-heartbeats", "needs-repro"],
    },
    {
        "id": 7,
        "title": "Docs: how long do lease seconds last",
        "body": "The lease seconds wording is confusing; orb 1202 is unrelated here.",
        "state": "closed",
        "labels": ["type:docs"],
    },
    {
        "id": 8,
        "title": "Upgrade from 3.1.1 breaks dashboard",
        "body": "After installing 3.1.1 (not 3.1.0) the dashboard OIDC login fails.",
        "state": "open",
        "labels": ["comp:dashboard-oidc", "version:3.1.1"],
    },
    {
        "id": 9,
        "title": "Worker memory leak with msgpack",
        "body": "RSS grows by 10 MB per hour on 3.0.2. " * 120,
        "state": "open",
        "labels": ["type:bug", "comp:workers", "version:3.0.2"],
    },
]


def _comments(issue_id: int, count: int, size: int) -> list[dict]:
    return [
        {
            "author": f"user{n}",
            "body": f"Comment {n} on #{issue_id}. " + "More detail here. " * size,
            "created_at": f"2025-10-{n + 1:02d}T10:00:00Z",
            "position": n,
        }
        for n in range(count)
    ]


def write_issues(root: Path, issues: list[dict]) -> Path:
    """Write issues.jsonl under root/issues, filling in the fields the real data has."""
    path = root / "issues" / "issues.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    derived.mark(root)  # a folder as `atlas dataset build` makes it: derived files beside the data
    lines = []
    for issue in issues:
        full = {
            "author": "reporter",
            "created_at": "2025-10-20T09:00:00Z",
            "closed_at": None,
            "duplicate_of": None,
            "comments": [],
            **issue,
        }
        if full["state"] == "closed" and full["closed_at"] is None:
            full["closed_at"] = "2025-10-25T09:00:00Z"
        lines.append(json.dumps(full))
    path.write_text("\n".join(lines) + "\n")
    return path


def make_dataset(root: Path) -> Path:
    """A complete data folder at `root`; returns root."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "error-codes.md").write_text(ERROR_CODES)
    (docs / "retries-and-backoff.md").write_text(RETRIES)
    (docs / "leases-and-heartbeats.md").write_text(LEASES)
    issues = [dict(i) for i in ISSUES]
    issues[2]["comments"] = _comments(3, 12, 3)
    issues[8]["comments"] = _comments(9, 3, 60)
    write_issues(root, issues)
    return root
