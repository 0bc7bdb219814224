"""GitHub's JSON as the synced folder keeps it, and which of two deliveries of one item is the later.

The staging store (datasets/github/store.py) writes these records; the webhook jobs and the tracker's writes
read them back from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any


def issue_record(raw: Mapping[str, Any], duplicate_of: int | None = None) -> dict[str, Any]:
    """An issue as the tools read it (issues.jsonl's fields) from GitHub's issue JSON."""
    user = raw.get("user") or {}
    return {
        "id": raw["number"],
        "title": raw.get("title") or "",
        "body": raw.get("body") or "",
        "state": raw.get("state") or "open",
        "author": user.get("login"),
        "created_at": raw.get("created_at"),
        "closed_at": raw.get("closed_at"),
        "duplicate_of": duplicate_of,
        "labels": [label["name"] if isinstance(label, dict) else str(label) for label in raw.get("labels") or []],
        "url": raw.get("html_url"),
        "gh_id": raw.get("id"),
        "state_reason": raw.get("state_reason"),
        **({"merged_at": raw["pull_request"].get("merged_at")} if isinstance(raw.get("pull_request"), dict) else {}),
    }


def older(incoming: Any, stored: Any) -> bool:
    """True when `incoming` (an `updated_at`) is older than `stored`: that payload is a late delivery
    (GitHub does not promise webhook order) and applying it would undo a later change. Unknown or
    unreadable times never count as older."""
    try:
        return datetime.fromisoformat(str(incoming)) < datetime.fromisoformat(str(stored))
    except (TypeError, ValueError):
        return False


def number_from_url(url: str) -> int | None:
    """The issue number at the end of an `issue_url`."""
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else None
