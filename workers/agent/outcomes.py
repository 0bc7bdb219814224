"""What a step of the agent ends with (`StepOutcome`, a value the loop matches on), how a run's answer is set when
it ends (`finish`), and the items a run starts from (`initial_items`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workers.agent.instructions import VIEWING_CHANNEL
from workers.runs.state import PendingCall, RunState, StopReason


@dataclass(frozen=True)
class Answered:
    text: str


@dataclass(frozen=True)
class RunAgain:
    pass


@dataclass(frozen=True)
class NeedsApproval:
    pending: list[PendingCall]


@dataclass(frozen=True)
class BudgetStop:
    reason: StopReason


@dataclass(frozen=True)
class HandedOff:
    """A help run's model called `hand_off`: not confident, so no answer (tools/hand_off.py)."""

    looked_at: str


StepOutcome = Answered | RunAgain | NeedsApproval | BudgetStop | HandedOff


def initial_items(run: RunState) -> list[dict[str, Any]]:
    """Earlier turns of the thread (for a follow-up), where the person was looking, then the question."""
    items: list[dict[str, Any]] = []
    for turn in run.history:
        items.append({"type": "message", "role": "user", "content": turn.question})
        items.append({"type": "message", "role": "assistant", "content": turn.answer})
    if run.context_channel:
        items.append(
            {"type": "message", "role": "user", "content": VIEWING_CHANNEL.format(channel=run.context_channel)}
        )
    items.append({"type": "message", "role": "user", "content": run.question})
    return items


def finish(run: RunState, text: str, reason: StopReason, *, partial: bool) -> None:
    run.answer = text
    run.stop_reason = reason
    run.partial = partial
    run.pending = []
    run.status = "partial" if partial else "done"
    run.mark_ended_here()  # its answer is not posted yet: no earlier job's post to look for
