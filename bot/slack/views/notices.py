"""The short messages a run leaves in its Slack thread besides the answer and the cards (workers/messages/notices.py):
the stop note, the hand-off, a thread note, the notice that the answer or the cards did not get through."""

from __future__ import annotations

from typing import assert_never

from bot.slack import wording
from bot.slack.views.approval import in_doubt_text
from bot.slack.views.markup import defuse, escape
from workers.messages import wording as said
from workers.messages.notices import HandOff, InDoubtNotice, Notice, Stopped, ThreadNote, Undelivered

UNDELIVERED = {
    "answer": wording.ANSWER_UNDELIVERED,
    "cards": wording.CARDS_UNDELIVERED,
    "triage_card": wording.TRIAGE_CARD_UNDELIVERED,
}


def notice_text(notice: Notice) -> str:
    """The notice as Slack mrkdwn; what is not Atlas's own is escaped and can ping nobody."""
    match notice:
        case Stopped():
            return wording.PROGRESS_STOPPED
        case HandOff(who=who, looked_at=looked_at):
            return said.HANDOFF.format(who=who, looked_at=escape(defuse(looked_at)))
        case InDoubtNotice():
            return in_doubt_text(notice)
        case ThreadNote(text=text):
            return escape(defuse(text))
        case Undelivered(what=what, minutes=minutes, run_id=run_id, count=count, issue=issue):
            return UNDELIVERED[what].format(
                minutes=minutes,
                minute_word="minute" if minutes == 1 else "minutes",
                run_id=run_id,
                count=count,
                issue=issue if issue is not None else "?",
            )
        case _:
            assert_never(notice)
