"""What a solved-thread run records: the answer that solved the thread, how it was marked, and what became of
the knowledge entry drafted from it (workers/knowledge/solved.py). Kept inside the run record (`RunState.solved`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SolvedStatus = Literal["drafting", "pending", "saved", "declined", "expired", "refused"]
Marked = Literal["reaction", "button", "forum_tag"]


class SolvedRecord(BaseModel):
    """The source answer's run, who marked the thread solved and how, the entry's fate."""

    source_run: str
    marked: Marked = "button"
    status: SolvedStatus = "drafting"
    entry: str = ""  # the entry's id once saved (workers/knowledge/entries.py)
    drafted_by: Literal["model", "thread"] | None = None
    model_failure: str = ""  # with a model configured: why its draft was not used
    names: list[str] = Field(
        default_factory=list
    )  # the people of the thread as the platform names them: never in the entry
