"""The answer as a value: its Markdown, how it ended, its sources and what goes under it, for every platform.

`answer_of` reads it off a finished run once; a platform renders it (bot/slack/views/answer.py) and posts it.
The body is the model's text, untrusted: each renderer makes it safe in its own markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workers import wording as run_words
from workers.agent.sources import source_url

if TYPE_CHECKING:  # a finished record read without its model is answered the same (workers/runs/record_json.py)
    from workers.runs.record_json import FinishedRun
    from workers.runs.state import RunState


@dataclass(frozen=True)
class Source:
    """One cited source: its id (`#12`, `retries-and-backoff`) and where it opens, when a base URL or the run
    names it."""

    id: str
    url: str | None


@dataclass(frozen=True)
class Answer:
    """Everything a platform shows of a run's answer."""

    run_id: str
    body: str  # the answer's Markdown, stripped; "" when the failure line says all there is
    failed: bool
    partial: bool
    reason: str  # why the run stopped, in words (workers/wording.py `stop_reason`)
    sources: tuple[Source, ...]
    steps: int
    tokens: int
    cost_usd: float
    fileable: bool  # "File as GitHub issue" and "Mark as answer" under it
    votes: bool  # the feedback buttons (none under a failed run)
    stop_code: str | None = None  # the stop reason as its code (`max_steps`), for a surface that shows codes (the CLI)


def answer_of(run: RunState | FinishedRun, *, docs_base_url: str | None, issues_base_url: str | None) -> Answer:
    """The run's answer as it is shown; `docs_base_url`/`issues_base_url` make its sources links."""
    failed = run.status == "failed"
    body = (run.answer or "").strip()
    if failed and body == (run.error or "").strip():
        body = ""  # only the stop message, which is internal wording: the failure line says it our way
    sources = sources_of(
        run.sources, docs_base_url=docs_base_url, issues_base_url=issues_base_url, urls=run.source_urls
    )
    return Answer(
        run_id=run.id,
        body=body,
        failed=failed,
        partial=run.partial,
        reason=run_words.stop_reason(run.stop_reason),
        sources=sources,
        steps=len(run.steps),
        tokens=run.usage.total,
        cost_usd=run.cost_usd,
        fileable=fileable(run),
        votes=not failed,
        stop_code=run.stop_reason,
    )


def sources_of(
    ids: list[str], *, docs_base_url: str | None, issues_base_url: str | None, urls: dict[str, str] | None = None
) -> tuple[Source, ...]:
    """Cited ids as sources: a source's own page (`urls`, a synced doc's) first, else its base URL's, else none."""
    own = urls or {}
    return tuple(
        Source(i, own.get(i) or source_url(i, docs_base_url=docs_base_url, issues_base_url=issues_base_url))
        for i in ids
    )


def fileable(run: RunState | FinishedRun) -> bool:
    """An answer a thread may be filed from: a finished question's, not a triage card's or a filing's own note."""
    return run.status in ("done", "partial") and run.triage is None and run.filing is None and run.solved is None
