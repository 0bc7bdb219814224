"""A new run's record as JSON, written without building a `RunState`.

Why: a mention's ack records its run before it answers Slack, and validating a `RunState` (its
origin, its platform's surface) then serialising it was a tenth of the ack's time in Python. A new
run differs from every other new run of its platform only in its id, question, origin and
timestamps; everything else is the model's defaults. So the defaults are dumped once, by pydantic,
from a real `RunState` (`QueuedRecord.build`), and each run adds its own fields as JSON.
`RunState.model_validate_json` reads the result back as the run `RunState(...)` would have made
(tests/workers/runs/test_queued_record.py compares the two for every field).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from workers.runs.state import Origin, Platform, RunState

# The fields a new run sets itself, in the order they are written; every other field is a default.
_PER_RUN = ("id", "question", "origin", "created_at", "updated_at", "history")


@dataclass(frozen=True)
class QueuedRecord:
    """The fixed part of a new `platform` run's record taken under `fingerprint`; `head` adds the rest."""

    platform: Platform
    defaults: str  # `"status":"queued",...`: the record's default fields, as pydantic writes them

    @classmethod
    def build(cls, platform: Platform, fingerprint: str | None) -> QueuedRecord:
        probe = RunState(question="", origin=Origin(kind=platform), settings_fingerprint=fingerprint, unfiled=True)
        fixed = probe.model_dump_json(exclude=set(_PER_RUN))
        return cls(platform=platform, defaults=fixed[1:-1])

    def head(self, run_id: str, question: str, origin: Origin, now: float) -> str:
        """The record of a new run without its `history` and closing brace (the intake script splices
        the thread's earlier turns in). `origin` must be of this record's platform."""
        if origin.kind != self.platform:
            raise ValueError(f"a {self.platform} record cannot carry a {origin.kind} origin")
        return "".join(
            (
                '{"id":',
                json.dumps(run_id),
                ',"question":',
                json.dumps(question, ensure_ascii=False),
                ',"origin":',
                origin.model_dump_json(),
                ',"created_at":',
                repr(now),
                ',"updated_at":',
                repr(now),
                ",",
                self.defaults,
            )
        )
