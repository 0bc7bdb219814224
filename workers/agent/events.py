"""What a run tells its reporters, typed: one frozen value per kind of event, `RunEvent` their union.

The agent (workers/agent/loop.py), the approval gate and the special flows emit these through
`Reporter.event(run, event)` (workers/agent/ports.py); a platform matches on the class and reads fields, never
a dict's keys. `record()` is the one place an event becomes a dict: the run's Redis stream (`atlas ask` tails
it) keeps the shape it always had.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from workers.runs.state import EventKind, PendingCall

ToolState = Literal["started", "done", "failed"]


@dataclass(frozen=True)
class StepStarted:
    """A step (one model call and its tool calls) begins; `step` counts from 1 across the run's jobs."""

    step: int
    kind: ClassVar[EventKind] = "step"

    def record(self) -> dict[str, Any]:
        return {"step": self.step}


@dataclass(frozen=True)
class ToolCalled:
    """A tool call started, or ended well (`done`) or with an error value (`failed`)."""

    call_id: str
    name: str
    arguments: str
    state: ToolState
    kind: ClassVar[EventKind] = "tool"

    def record(self) -> dict[str, Any]:
        return {"call_id": self.call_id, "name": self.name, "arguments": self.arguments, "state": self.state}


@dataclass(frozen=True)
class Paused:
    """The run waits for decisions on these calls: each gets an approval card (a platform skips cards it posted)."""

    pending: tuple[PendingCall, ...]
    kind: ClassVar[EventKind] = "paused"

    def record(self) -> dict[str, Any]:
        return {"pending": [p.model_dump() for p in self.pending]}


@dataclass(frozen=True)
class Finished:
    """The run ended (answered, partial, failed or stopped): its answer is on the run, to post once."""

    kind: ClassVar[EventKind] = "answer"

    def record(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class InDoubt:
    """An approved call may or may not have run (the worker died in it, or the tracker did not confirm)."""

    pending_id: str
    name: str
    arguments: str
    kind: ClassVar[EventKind] = "in_doubt"

    def record(self) -> dict[str, Any]:
        return {"pending_id": self.pending_id, "name": self.name, "arguments": self.arguments}


RunEvent = StepStarted | ToolCalled | Paused | Finished | InDoubt
