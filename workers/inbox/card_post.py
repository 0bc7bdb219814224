"""A triage card's one post, whatever the platform: adopt the card an earlier try posted but never
recorded, else update the recorded one, else record the intent, post, and record where it went.

The platforms (bot/slack/triage_card.py, bot/discord/triage_card.py) give only how to look for their
marker in the channel, how to edit, and how to post; the order of saves around the post is here, once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from workers.approvals import records as approvals
from workers.runs.state import RunState
from workers.runs.store import RunStore


def post_once(store: RunStore, run: RunState, channel: str, *, find: Callable[[float], str | None],
              edit: Callable[[str, str], None], post: Callable[[], tuple[str, str]]) -> None:
    """`find(since)`: the id of this run's card posted in `channel` since then, or None; `edit(channel, id)`
    brings the recorded card up to date; `post()` posts it and returns (channel, id)."""
    record = run.triage
    assert record is not None
    if not record.card_ts and record.card_posting:  # an earlier try set out to post it: did the platform take it?
        found = find(record.card_posting)
        if found is not None:
            _record(store, run, channel, found)
    if record.card_ts:
        edit(record.card_channel, record.card_ts)
        return
    record.card_posting = record.card_posting or time.time()
    store.save(run)  # the intent, before anything reaches the platform
    for call in run.pending:
        approvals.reserve_card(store.conn, call.pending_id, channel)
    _record(store, run, *post())


def _record(store: RunStore, run: RunState, channel: str, card_id: str) -> None:
    """Where the card is, on the run and on each of its approvals (a click is decided only there)."""
    assert run.triage is not None
    run.triage.card_channel, run.triage.card_ts = channel, card_id
    store.save(run)
    for call in run.pending:
        approvals.attach_card(store.conn, call.pending_id, channel, card_id)
