"""A run's persisted state: everything another worker process needs to continue it."""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from workers.runs import record_json
from workers.runs.filing_record import FilingRecord
from workers.runs.solved_record import SolvedRecord
from workers.runs.surfaces import RunSurface, for_platform
from workers.runs.triage_record import TriageRecord

RunStatus = Literal["queued", "running", "awaiting_approval", "done", "partial", "failed", "expired"]
StopReason = Literal[
    "done",
    "max_steps",
    "max_seconds",
    "max_tokens",
    "max_errors",
    "context_full",
    "model_unavailable",
    "model_rejected",
    "model_malformed",
    "worker_lost",
    "approval_expired",
    "internal_error",
    "stopped_by_user",
    "settings_mismatch",
    "spend_cap",
]
# a finished run's statuses (workers/runs/record_json.py reads them off a record without this model)
FINAL_STATUSES: frozenset[str] = record_json.FINAL_STATUSES


# What a run tells its reporters (workers/agent/loop.py `Reporter.event`): a step began, a tool call changed
# state, the run paused for approval, it ended (answer), an approved call may or may not have run.
EventKind = Literal["step", "tool", "paused", "answer", "in_doubt"]
Platform = Literal["cli", "slack", "discord"]  # which chat platform a run belongs to (workers/process/platforms.py)


class Origin(BaseModel):
    """Where the question came from and where the answer goes. On Discord: team = guild id,
    channel = channel id, message_ts = the message id, thread_ts = the thread's id."""

    kind: Platform = "cli"
    user: str | None = None
    channel: str | None = None
    thread_ts: str | None = None
    message_ts: str | None = None
    team: str | None = None
    # Asked in a help channel without a mention (workers/help/): no progress shown, and a run that is not
    # confident hands off instead of answering.
    unprompted: bool = False


class Usage(BaseModel):
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.cached_tokens += other.cached_tokens
        self.output_tokens += other.output_tokens


class StepRecord(BaseModel):
    """What one model call and its tool calls did, for the footer and the benchmarks."""

    index: int
    tools: list[str] = Field(default_factory=list)
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    ms: int = 0
    wrap_up: bool = False


class PendingCall(BaseModel):
    """A side-effect call waiting for a human decision (see workers.approvals.records)."""

    pending_id: str
    call_id: str
    name: str
    arguments: str
    step: int


class Turn(BaseModel):
    """An earlier question and answer of the same thread, replayed as context for a follow-up."""

    question: str
    answer: str
    asker: str | None = None  # who asked it (the platform's user id): a filed draft quotes only its asker's words


class AnsweredBy(BaseModel):
    """What answered a run: the model (or "offline") and the project's data folder, for the footer."""

    model: str
    data_dir: str


class RunState(BaseModel):
    """The run record. Saved whole after every step; the loop never keeps state elsewhere."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:16])
    question: str
    origin: Origin = Field(default_factory=Origin)
    history: list[Turn] = Field(default_factory=list)
    context_channel: str | None = None  # the channel the person was looking at (Slack's assistant view)
    # The repository the run is about (issue 38): its channel's, its issue's; None: every one served (a channel
    # about none), the Orbit demo, or a record of an older version. Set by the worker, saved with its first step.
    repo: str | None = None
    status: RunStatus = "queued"
    items: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[StepRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    seconds_spent: float = 0.0
    consecutive_errors: int = 0
    pending: list[PendingCall] = Field(default_factory=list)
    answer: str | None = None
    stop_reason: StopReason | None = None
    partial: bool = False
    sources: list[str] = Field(default_factory=list)
    source_urls: dict[str, str] = Field(default_factory=dict)  # a doc's own page (synced docs carry it)
    cost_usd: float = 0.0
    error: str | None = None
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    surface: RunSurface = Field(
        default_factory=dict, validate_default=True
    )  # what the platform was sent (workers/runs/surfaces.py)
    # `Settings.fingerprint` of the process that took the question; only a worker with the same
    # fingerprint answers it (workers/settings_check.py). None: any worker (runs from older versions).
    settings_fingerprint: str | None = None
    answered_by: AnsweredBy | None = None
    # A help run that was not confident: the one line of what it looked at, posted as a hand-off instead of an answer.
    handoff: str | None = None
    triage: TriageRecord | None = None  # a triage run (workers/new_issues/): the issue, its suggestions, each action
    filing: FilingRecord | None = None  # a filing run (workers/followup/filing.py): a thread drafted as an issue
    solved: SolvedRecord | None = (
        None  # a solved-thread run (workers/knowledge/solved.py): a thread drafted as knowledge
    )
    # True: never filed in the console's index (workers/console_data/run_index.py), so its first filing takes it out
    # of no other status; set where a run is made, cleared in the record written before its first filing. False
    # (records of older versions, or filed already): a filing takes it out of every other status.
    unfiled: bool = False
    # The console filing (workers/console_data/run_index.py `Filing`) last written for this very object, by
    # `RunStore.save`; never stored, so a record loaded again (a re-delivery, another job) is filed again.
    _filed: Any = PrivateAttr(default=None)

    def filed(self) -> Any:
        """The console filing last written for this object (None: none yet)."""
        return self._filed

    def mark_filed(self, filing: Any) -> None:
        self._filed = filing

    # Whether this very object was brought to its end (`workers/agent/outcomes.finish`); never stored, so a record
    # loaded final is one an earlier job ended, which may have posted its answer before it recorded where.
    _ended_here: bool = PrivateAttr(default=False)

    def ended_here(self) -> bool:
        """True once this object's run was ended in this process (not loaded already ended)."""
        return self._ended_here

    def mark_ended_here(self) -> None:
        self._ended_here = True

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES

    @field_validator("surface", mode="before")
    @classmethod
    def _surface_of_platform(cls, value: Any, info: ValidationInfo) -> Any:
        """The stored surface (a plain dict) becomes the model of the run's platform, named by its origin (validated
        before it: fields validate in order). Only this field: the record's JSON stays on pydantic's fast path."""
        origin = info.data.get("origin")
        return for_platform(origin.kind if isinstance(origin, Origin) else "cli", value)

    @model_validator(mode="after")
    def _surface_matches_origin(self) -> RunState:
        if self.surface.kind != self.origin.kind:
            raise ValueError(f"a {self.origin.kind} run cannot carry a {self.surface.kind} surface")
        return self
