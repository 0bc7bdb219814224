"""What a filing run records: the answer it was asked from, and what became of the issue it drafted.

A filing run (workers/followup/filing.py) starts from a click on "File as GitHub issue" under an
answer: it drafts the issue from that answer's thread, waits on one approval (a `create_issue` call,
through the same gate, ledger and audit as any side effect), and on Approve files it once and
subscribes the thread. Kept inside the run record (`RunState.filing`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

FilingStatus = Literal["drafting", "pending", "filed", "added", "declined", "expired", "failed", "in_doubt"]
DraftedBy = Literal["model", "thread"]  # who wrote the draft: the model, or Atlas from the thread's own words


class FilingRecord(BaseModel):
    """The source answer's run, the draft's fate, and the issue filed (once known)."""

    source_run: str
    repo: str | None = None  # where it is filed (issue 38): the answer's repository; None: the install's only one
    status: FilingStatus = "drafting"
    number: int | None = None
    result: str = ""
    told: bool = False  # the thread heard the outcome (said once, across retried jobs)
    note_posting: float = (
        0.0  # when a worker set out to tell the thread (epoch seconds): a retry looks for the note first
    )
    note_ts: str = ""  # the note's message, once recorded
    note_failed_since: float = (
        0.0  # when the platform first failed to take the note (epoch seconds): the outage budget's start
    )
    note_tries: int = 0  # re-deliveries of the note scheduled so far (workers/followup/filing_note.py)
    drafted_by: DraftedBy | None = None  # what the card says made the draft (workers/followup/filing.py)
    model_failure: str = ""  # with a model configured: why its draft was not used and the thread's words were drafted
    redacted: int = 0  # secrets the draft replaced by a marker (atlas/secret_shapes.py): the card says how many
    left_out: list[str] = Field(default_factory=list)  # others who wrote in the thread: not quoted, named on the card
    similar: list[dict[str, Any]] = Field(
        default_factory=list
    )  # open issues maybe the same (workers/followup/similar.py)

    @property
    def drafted(self) -> Literal["model", "thread", "fallback"] | None:
        """What the card says made the draft: the model, the thread's words, or those once the model's draft failed."""
        if self.drafted_by is None:
            return None
        return "fallback" if self.drafted_by == "thread" and self.model_failure else self.drafted_by
