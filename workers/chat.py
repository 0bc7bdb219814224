"""The chat-platform port: how a run reports on the platform it came from.

A run reports through one interface: progress, the answer and approval cards arrive as `Reporter`
events (workers/agent/events.py); a card's later updates (decided, done, expired) and
notices in the thread are methods, and so are a note in any thread Atlas answered in (a subscription's
close-the-loop message, workers/followup/) and a thread's permalink. Slack (bot/slack/surface.py) and Discord
(bot/discord/surface.py) implement it; the core never names either (workers/process/platforms.py picks one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from workers.agent.ports import Reporter

if TYPE_CHECKING:
    from workers.approvals.records import Approval
    from workers.runs.post_once import KeyedSlot
    from workers.runs.state import Origin, RunState

ThreadNote = Literal["posted", "gone"]  # "gone": Atlas may no longer post there (removed from the channel, deleted)


class ChatPlatform(Reporter):
    """A chat platform as a run sees it. One instance per job; nothing kept between jobs."""

    def card_decided(
        self, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False
    ) -> bool:
        """Edit an approval card to show its decision (who, what, when) and the result if any; no buttons.
        Returns False when the card could not be edited (never raises for the platform's errors)."""
        raise NotImplementedError

    def notice_in_doubt(self, run: RunState, approval: Approval, issue_url: str | None = None) -> None:
        """Say in the run's thread that an approved action may or may not have happened (linking the
        issue's page on the tracker when there is one)."""
        raise NotImplementedError

    def hand_off(self, run: RunState, looked_at: str) -> None:
        """A help run that is not confident: mention the configured hand-off in the run's thread with the one
        line of what it looked at, once across retried jobs; nothing when no hand-off is set for the platform."""
        raise NotImplementedError

    def triage_card(self, run: RunState) -> None:
        """Post the one triage card of a triage run (workers/new_issues/) in the triage channel, or update it in
        place: the issue, each action with its own Approve and Reject until decided, who decided what."""
        raise NotImplementedError

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        """Post `text` (plain, untrusted parts included: escaped here, never a ping) in the thread at `place`
        (a subscription's place, workers/followup/subscriptions.py). "gone" when the platform says Atlas was
        removed from that channel or it no longer exists; other failures raise the platform's error. With
        `once`, posted at most once across killed workers (workers/runs/post_once.py): the note is marked
        with `once.key`, and a retry adopts the note an earlier try posted but never recorded."""
        raise NotImplementedError

    def permalink(self, place: Origin) -> str | None:
        """A link to the thread at `place` that people can open, or None when the platform gives none."""
        raise NotImplementedError

    def people(self, source: RunState) -> list[str]:
        """How the platform names the people of the thread `source` answered in (its askers, who wrote in it), for a
        solved thread's entry to leave out; [] when the platform names nobody."""
        return []
