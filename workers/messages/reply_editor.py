"""The editor a triage card's Edit button opens, as a value: the reply as it stands, to be changed before it is
approved. A platform renders it as its own form (bot/slack/views/reply_editor.py, bot/discord/views/triage_controls.py);
what comes back is checked by workers/new_issues/choices.py."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReplyEditor:
    """`pending_id`: the card's action the reply belongs to; `body`: the reply now; `limit`: the most characters the
    edited reply may have (workers/new_issues/choices.py `REPLY_MAX_CHARS`)."""

    pending_id: str
    body: str
    limit: int
