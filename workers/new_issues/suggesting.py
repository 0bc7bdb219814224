"""What the triage suggests for a new issue, and the record the card is drawn from (issue 24, 36).

The model's triage through its read tools when one is configured (workers/triage/model_triage.py), else, or when it
fails, the offline engine's under the repository's live calibration (workers/triage/rolling.py), which the card's
thresholds line names (wording.thresholds_line). Split from triage_run.py: that module runs the job, this one only
decides what to offer.
"""

from __future__ import annotations

from dataclasses import replace

from datasets.tracker_db import db_path
from tools.context import ToolContext
from tools.issue_store import IssueStore
from workers.agent.cost import dollars
from workers.new_issues import actions as triage_actions
from workers.new_issues import originals, wording
from workers.parts import WorkerParts
from workers.runs.state import RunState
from workers.runs.triage_record import TriageAction, TriageRecord
from workers.triage import autonomy, outcomes, rolling
from workers.triage.engine import NewIssue, Suggestions, Triage


def candidates(rt: WorkerParts, run: RunState, record: TriageRecord, ctx: ToolContext) -> list[TriageAction]:
    """The triage's suggestions for the issue (recorded for the card) as actions, in card order."""
    engine = (
        rt.triage_engine()
    )  # opened once per worker process, grown as issues arrive (workers/triage/engine_cache.py)
    found, by = _suggest(rt, run, engine, record, ctx)
    # `auto` applies only what the engine that acts suggests, and only labels its own last backtest earned (the
    # model's, kept apart by `atlas triage backtest --model`, when one is configured): checked here as well as
    # at start, so a worker built some other way never rides on another engine's figures (issue 35 item 2)
    model = None if rt.settings.offline else rt.settings.model
    acting = autonomy.acting_per_label(rt.settings.data_dir, rt.settings.home, model)
    chosen = autonomy.earned_by(found, by, model)
    earned_by = replace(chosen, labels=[s for s in chosen.labels if autonomy.may_auto(s.name, acting, model).allowed])
    issue = rt.tracker.issue(record.issue)
    if issue is not None:
        record.title, record.url = issue.title, issue.url
    if not record.author:  # `atlas triage N --post`: the tracker's record says who opened it
        record.author = author(rt, record.issue)
    figures = autonomy.last_per_label(rt.settings.data_dir, rt.settings.home) or {}  # shown beside the labels' mode
    related = [
        {"id": d.id, "score": d.score, "evidence": d.evidence, "url": rt.tracker.url(d.id)} for d in found.related
    ]
    record.suggestions = {
        **found.as_json(),
        "related": related,  # with their links: the card shows them (issue 36 item 1)
        "by": by,
        "original": {},
        "label_evidence": {s.name: s.evidence for s in found.labels},
        "backtest": {s.name: figures[s.name] for s in found.labels if isinstance(figures.get(s.name), dict)},
        "backtest_duplicates": autonomy.last_duplicates(rt.settings.data_dir, rt.settings.home),
    }
    record.thresholds = wording.thresholds_line(found.thresholds)  # the card's "which thresholds, from what"
    return originals.point(
        rt, engine, record, triage_actions.build(found, issue, rt.tracker.known_labels(), rt.settings.triage, earned_by)
    )


def _suggest(
    rt: WorkerParts, run: RunState, engine: Triage, record: TriageRecord, ctx: ToolContext
) -> tuple[Suggestions, str]:
    """The model's triage through its tools when one is configured (its usage billed to the run), else, or when it
    fails or runs over the triage budget, the offline engine's; and which of the two answered."""
    known = engine.history.get(record.issue)
    issue = NewIssue(record.issue, known.title if known else record.title, known.body if known else "")
    if not rt.settings.offline:
        from workers.triage import model_triage

        before = known.seq if known is not None else len(engine.history)
        triage, budget = rt.settings.triage, rt.settings.budget
        attempt = model_triage.suggest(
            rt.model,
            rt.registry,
            ctx,
            issue,
            rt.tracker.known_labels(),
            lambda n: (r := engine.history.get(n)) is not None and r.seq < before,
            max_steps=min(triage.max_steps, budget.max_steps),
            max_tokens=min(triage.max_tokens, budget.max_tokens),
            project=rt.settings.project.name,
        )
        run.usage.add(attempt.usage)
        run.cost_usd = dollars(run.usage, rt.settings.price)
        if attempt.suggestions is not None:
            return attempt.suggestions, "model"
    thresholds = rolling.live(engine, outcomes.load(rt.conn, record.repo))  # the maintainers' decisions count too
    return (
        engine.triage(record.issue, thresholds) if known is not None else engine.triage(issue, thresholds)
    ), "offline"


def author(rt: WorkerParts, number: int) -> str:
    store = IssueStore(db_path(rt.settings.data_dir, rt.settings.home))
    try:
        stored = store.get(number)
        return (stored.author if stored is not None else None) or ""
    finally:
        store.close()
