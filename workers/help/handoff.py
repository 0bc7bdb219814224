"""How a help-channel run reports: quietly until it is sure, then an answer, a hand-off, or nothing.

A help run is asked without a mention, so its thread shows no progress message: the platform hears
only the answer (and approval cards, should the run propose an action). A run that ended not
confident (`RunState.handoff`, set when it called `hand_off`) posts the hand-off instead of an
answer, once per thread (the first such run claims the thread; its retried jobs find their own
claim), or nothing when no hand-off is configured. When the run ends, messages the asker sent
while it worked get their run (workers/help/followups.py).
"""

from __future__ import annotations

import logging

import redis

from atlas.settings import Settings
from workers.agent.events import Finished, RunEvent, StepStarted, ToolCalled
from workers.approvals.records import Approval
from workers.chat import ChatPlatform
from workers.help import followups, threads
from workers.runs.state import RunState

log = logging.getLogger("atlas.help")


class HelpReporter(ChatPlatform):
    """The run's platform, seen through a help channel's rules."""

    def __init__(self, platform: ChatPlatform, conn: redis.Redis, settings: Settings) -> None:
        self.platform, self.conn, self.settings = platform, conn, settings

    def event(self, run: RunState, event: RunEvent) -> None:
        if isinstance(event, StepStarted | ToolCalled):
            return  # no progress message in a help channel
        if isinstance(event, Finished) and run.handoff is not None:
            thread = threads.thread_of(run)
            if threads.claim_handoff(self.conn, thread, run.id):
                self.platform.hand_off(run, run.handoff)
            else:
                log.info("run %s: not confident; thread %s was handed off already, staying silent", run.id, thread)
        else:
            self.platform.event(run, event)
        if isinstance(event, Finished):
            followups.start_waiting(self.conn, self.settings, run)

    def hand_off(self, run: RunState, looked_at: str) -> None:
        self.platform.hand_off(run, looked_at)

    def card_decided(
        self, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False
    ) -> bool:
        return self.platform.card_decided(approval, result=result, ok=ok, in_doubt=in_doubt)

    def notice_in_doubt(self, run: RunState, approval: Approval, issue_url: str | None = None) -> None:
        self.platform.notice_in_doubt(run, approval, issue_url)

    def triage_card(self, run: RunState) -> None:
        self.platform.triage_card(run)
