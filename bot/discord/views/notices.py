"""The short messages a run leaves in its Discord thread besides the answer and cards, from their values
(workers/messages/notices.py): a hand-off, an action that may or may not have happened, a thread note."""

from __future__ import annotations

from atlas.text import clip
from bot.discord import wording
from bot.discord.views.limits import CONTENT_LIMIT
from bot.discord.views.markup import escape
from workers.messages.notices import HandOff, InDoubtNotice, ThreadNote


def handoff_text(handoff: HandOff) -> str:
    """The hand-off: `who` is the roles' mentions (the only ones the post lets ping), what was looked at escaped."""
    return clip(wording.HANDOFF.format(who=handoff.who, looked_at=escape(handoff.looked_at)), CONTENT_LIMIT)


def in_doubt_text(notice: InDoubtNotice) -> str:
    """An approved action that may or may not have happened, for the one who decided (or asked) to check."""
    user = notice.user or ""
    return wording.APPROVAL_IN_DOUBT_THREAD.format(
        name=notice.name.replace("`", ""),
        issue=escape(notice.issue or "?"),
        user=user if user.isdigit() else "?",
        link=f" (<{notice.url}>)" if notice.url else "",
    )


def note_text(note: ThreadNote) -> str:
    """A note in a thread Atlas answered in (its text is Atlas's own words), within one message."""
    return clip(note.text, CONTENT_LIMIT)
