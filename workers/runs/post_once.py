"""A message Atlas posts exactly once, though the worker posting it may be SIGKILLed between the platform
taking it and the record saying where it went: Slack's chat.postMessage has no idempotency key, and
Discord enforces a nonce for a few minutes only.

The order of saves is the whole guarantee, and it is here once: adopt what an earlier try posted but
never recorded (found by its marker in the channel since that try's intent), else update what is
recorded, else record the intent, post, and record where it went. What a message records, and where,
is its `Slot` (a triage card's run, an approval's record, a notice's claim); how to look for its marker,
edit it and post it is the platform's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol


class Slot(Protocol):
    """Where one message's intent and place are saved."""

    def posted(self) -> tuple[str, str] | None:
        """(channel, message id) once recorded, else None."""

    def posting(self) -> float:
        """When an earlier try set out to post it (epoch seconds); 0 if none did."""

    def intend(self, at: float) -> None:
        """Save the intent (at `at`) before anything reaches the platform."""

    def record(self, channel: str, message: str) -> None:
        """Save where it went."""


class KeyedSlot(Slot, Protocol):
    """A slot whose message the platform marks with a key of its own (a thread note has no buttons to be
    known by): stable across tries, unique to the message."""

    @property
    def key(self) -> str:
        """The message's marker, e.g. `filed:<run id>`."""


def post_once(
    slot: Slot,
    channel: str,
    *,
    find: Callable[[float], str | None],
    post: Callable[[], tuple[str, str]],
    edit: Callable[[str, str], None] | None = None,
) -> tuple[str, str]:
    """The message's (channel, id), posted at most once. `find(since)`: the id of this message in `channel`
    posted since then, or None (a temporary failure raises: the job is retried and looks again);
    `edit(channel, id)`: bring the recorded message up to date; `post()`: post it, returning (channel, id)."""
    posted, since = slot.posted(), slot.posting()
    if posted is None and since:  # an earlier try set out to post it: did the platform take it?
        found = find(since)
        if found is not None:
            slot.record(channel, found)
            posted = (channel, found)
    if posted is not None:
        if edit is not None:
            edit(*posted)
        return posted
    slot.intend(since or time.time())  # the intent, before anything reaches the platform
    posted = post()
    slot.record(*posted)
    return posted
