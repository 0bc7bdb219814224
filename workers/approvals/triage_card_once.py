"""A triage card's one post, whatever the platform: its intent and place are saved on the run (and its
channel and message on each of its approvals, where a click is decided); the order of saves around the
post is workers/runs/post_once.py's.

The platforms (bot/slack/triage_card.py, bot/discord/triage_card.py) give only how to look for their
marker in the channel, how to edit, and how to post.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from workers.approvals import records as approvals
from workers.runs import post_once as once
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageRecord


def post_once(
    store: RunStore,
    run: RunState,
    channel: str,
    *,
    find: Callable[[float], str | None],
    edit: Callable[[str, str], None],
    post: Callable[[], tuple[str, str]],
) -> None:
    """`find(since)`: the id of this run's card posted in `channel` since then, or None; `edit(channel, id)`
    brings the recorded card up to date; `post()` posts it and returns (channel, id)."""
    once.post_once(_TriageCard(store, run, channel), channel, find=find, edit=edit, post=post)


@dataclass
class _TriageCard:
    """The card's slot: the run's triage record, and each pending call's approval."""

    store: RunStore
    run: RunState
    channel: str

    @property
    def _record(self) -> TriageRecord:
        assert self.run.triage is not None
        return self.run.triage

    def posted(self) -> tuple[str, str] | None:
        return (self._record.card_channel, self._record.card_ts) if self._record.card_ts else None

    def posting(self) -> float:
        return self._record.card_posting

    def intend(self, at: float) -> None:
        self._record.card_posting = at
        self.store.save(self.run)
        for call in self.run.pending:
            approvals.reserve_card(self.store.conn, call.pending_id, self.channel)

    def record(self, channel: str, message: str) -> None:
        """Where the card is, on the run and on each of its approvals (a click is decided only there)."""
        self._record.card_channel, self._record.card_ts = channel, message
        self.store.save(self.run)
        for call in self.run.pending:
            approvals.attach_card(self.store.conn, call.pending_id, channel, message)
