"""Small hand-made trackers for the triage tests: issue dicts as History.from_rows takes them."""

from __future__ import annotations

from typing import Any

from workers.triage.engine import Triage
from workers.triage.history import History


def issue(
    number: int,
    title: str,
    body: str,
    labels: list[str] | None = None,
    day: str | None = "",
    state: str = "closed",
    duplicate_of: int | None = None,
) -> dict[str, Any]:
    return {
        "id": number,
        "title": title,
        "body": body,
        "labels": labels or [],
        "state": state,
        "created_at": f"2024-01-{number:02d}" if day == "" else day,
        "duplicate_of": duplicate_of,
    }


TRACKER = [
    issue(
        1,
        "Worker crashes with KeyError 'lease_id' on startup",
        "orbit 3.0.1\n```\nTraceback (most recent call last):\n  File "
        "\"orbit/worker.py\", line 10\nKeyError: 'lease_id'\n```",
        ["bug", "comp:workers", "version:3.0.1", "S: needs repro", "duplicate"],
    ),
    issue(
        2,
        "Dark mode for the dashboard",
        "It would be nice to have a dark theme for the dashboard pages.",
        ["enhancement", "comp:dashboard"],
    ),
    issue(
        3,
        "How do I set the cron timezone?",
        "Is there a setting for the scheduler timezone? The docs say nothing.",
        ["question", "comp:cron"],
    ),
    issue(
        4,
        "XSS in the login form",
        "The login form echoes the next parameter unescaped: a security hole.",
        ["security", "bug"],
    ),
    issue(
        5,
        "Dashboard should remember the dark theme",
        "A dark theme option on the dashboard that sticks between visits.",
        ["enhancement", "comp:dashboard"],
    ),
    issue(
        6,
        "KeyError lease_id when the worker starts",
        "Since 3.0.1 the worker dies at start:\n```\nKeyError: 'lease_id'\n```",
        ["bug", "comp:workers", "version:3.0.1"],
    ),
    # opened after #6 and a closer twin of it: never a candidate for #6
    issue(
        7,
        "KeyError lease_id when the worker starts (again)",
        "Since 3.0.1 the worker dies at start:\n```\nKeyError: 'lease_id'\n```",
        ["bug", "comp:workers"],
    ),
]


def engine(rows: list[dict[str, Any]] | None = None) -> Triage:
    return Triage(History.from_rows(rows if rows is not None else TRACKER))
