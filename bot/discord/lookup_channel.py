"""The channel whose repository a Discord lookup is about (issue 38)."""

from __future__ import annotations

from typing import Any


def lookup_channel(org: Any, payload: dict[str, Any]) -> str | None:
    """The interaction's channel, or, in a thread of a mapped channel, its parent's (Discord sends the thread's id
    as `channel_id` and its parent as `channel.parent_id`)."""
    channel = str(payload.get("channel_id") or "") or None
    parent = str((payload.get("channel") or {}).get("parent_id") or "") or None
    return channel if org.repo_for_channel(channel) or not parent else parent
