"""What a filing run records: the answer it was asked from, and what became of the issue it drafted.

A filing run (workers/followup/filing.py) starts from a click on "File as GitHub issue" under an
answer: it drafts the issue from that answer's thread, waits on one approval (a `create_issue` call,
through the same gate, ledger and audit as any side effect), and on Approve files it once and
subscribes the thread. Kept inside the run record (`RunState.filing`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

FilingStatus = Literal["drafting", "pending", "filed", "declined", "expired", "failed", "in_doubt"]


class FilingRecord(BaseModel):
    """The source answer's run, the draft's fate, and the issue filed (once known)."""

    source_run: str
    status: FilingStatus = "drafting"
    number: int | None = None
    result: str = ""
    told: bool = False  # the thread heard the outcome (said once, across retried jobs)
    note_posting: float = 0.0  # when a worker set out to tell the thread (epoch seconds): a retry looks for the note first
    note_ts: str = ""  # the note's message, once recorded
