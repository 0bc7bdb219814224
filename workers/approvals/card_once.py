"""An approval card's one post (the Approve/Deny card of a paused side-effect call): its intent and place
are saved on the approval's record, where a click is decided (workers/approvals/place.py); the order of
saves around the post is workers/runs/post_once.py's, as for the triage card.

The platforms (bot/slack/cards.py, bot/discord/cards.py) give how to look for the card's marker in the
thread and how to post it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import redis

from workers.approvals import records


@dataclass
class ApprovalCard:
    """The slot of one call's card: `channel` where it goes, `blocks` what it shows (kept for later edits)."""

    conn: redis.Redis
    pending_id: str
    channel: str
    blocks: str = ""

    @cached_property
    def _found(self) -> records.Approval | None:
        """The record as it stood when this post began (read once: post_once asks it twice)."""
        return records.load(self.conn, self.pending_id)

    def posted(self) -> tuple[str, str] | None:
        found = self._found
        return (found.channel, found.card_ts) if found is not None and found.card_ts else None

    def posting(self) -> float:
        found = self._found
        try:
            return float(found.card_posting) if found is not None and found.card_posting else 0.0
        except ValueError:
            return 0.0

    def intend(self, at: float) -> None:
        records.reserve_card(self.conn, self.pending_id, self.channel, self.blocks, at=at)

    def record(self, channel: str, message: str) -> None:
        records.attach_card(self.conn, self.pending_id, channel, message, self.blocks)
