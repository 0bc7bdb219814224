"""`atlas triage ISSUE` and `atlas triage backtest`: the offline triage, printed; nothing is posted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from atlas.cli import triage_compare, triage_decisions
from atlas.errors import ConfigError
from atlas.settings import Settings
from atlas.triage_settings import TriageSettings
from workers.triage import autonomy, backtest, model_backtest, rolling
from workers.triage.answer_cache import CachedModel
from workers.triage.backtest import Result
from workers.triage.engine import Suggestions, Triage


def triage_one(settings: Settings, number: int, *, as_json: bool) -> int:
    """Triage one issue of the served data as of its creation; 1 with one line when there is no such issue."""
    engine = Triage.open(settings.data_dir, settings.home, settings.semantic_docs)
    if engine.history.get(number) is None:
        ids = [r.id for r in engine.history.records]
        where = f"issue ids run from {min(ids)} to {max(ids)}" if ids else "the tracker has no issues"
        print(f"atlas triage: no issue #{number} in {settings.data_dir} ({where})", file=sys.stderr)
        return 1
    decisions = triage_decisions.recorded(settings)
    found = engine.triage(number, rolling.as_of(engine, number, decisions.used))  # as of its creation
    if as_json:  # the documented object stays exactly that; the note goes beside it
        print(json.dumps(found.as_json()))
        print(f"atlas triage: calibrated {decisions.note}", file=sys.stderr)
    else:
        print(render(found) + f"\n  calibrated {decisions.note}")
    return 0


def run_backtest(
    settings: Settings,
    last: int | None,
    since: str | None,
    *,
    as_json: bool,
    model: bool = False,
    max_cost: float = model_backtest.DEFAULT_MAX_COST,
) -> int:
    """Replay the last closed issues, print the figures, and keep them as this repository's last backtest;
    `model`: with the configured model too (its figures kept apart, beside the offline engine's)."""
    if model and settings.offline:
        print(
            "atlas triage: backtest --model needs a model (OPENAI_API_KEY or OPENAI_BASE_URL); none is configured",
            file=sys.stderr,
        )
        return 2
    engine = Triage.open(settings.data_dir, settings.home, settings.semantic_docs)
    decisions = triage_decisions.recorded(settings)  # what maintainers decided counts as it did live
    rows = backtest.rows(engine, last, since, decisions.used)
    result = backtest.score(rows)
    payload = result.as_json()
    autonomy.save(settings.data_dir, settings.home, payload)
    shown = {**payload, "recorded_decisions": None if decisions.outcomes is None else len(decisions.outcomes)}
    table = render_backtest(result, engine.mode) + f"\ncalibrated {decisions.note}"
    if as_json:
        print(f"atlas triage: calibrated {decisions.note}", file=sys.stderr)
    if not model:
        print(json.dumps(shown) if as_json else table)
        return 0
    replay = _model_replay(settings, engine, rows, last, since, max_cost)
    figures = replay.as_json()
    autonomy.save(settings.data_dir, settings.home, figures, replay.model)
    print(json.dumps({**shown, "model": figures}) if as_json else table + "\n\n" + triage_compare.render(replay))
    return 0


def live_report(settings: Settings, days: int, *, as_json: bool) -> int:
    """`atlas triage report`: each action's live precision from maintainers' decisions, beside the last backtest's."""
    from atlas.connection import connect
    from workers.triage import live

    if days < 1:
        print("atlas triage report: --days must be at least 1", file=sys.stderr)
        return 2
    repo = settings.github.repo if settings.github is not None else "demo"
    found = live.report(connect(settings), repo, days, settings.data_dir, settings.home)
    print(json.dumps(found.as_json()) if as_json else live.render(found))
    return 0


def _model_replay(
    settings: Settings,
    engine: Triage,
    rows: list[backtest.Replayed],
    last: int | None,
    since: str | None,
    max_cost: float,
) -> model_backtest.ModelReplay:
    """The replay by the configured model through the worker's triage call, its answers kept."""
    from tools import v2_registry
    from workers.agent.model import ResponsesModel

    folder = model_backtest.answers_folder(settings.data_dir, settings.home)
    cached = CachedModel(ResponsesModel(settings), settings.model, folder, settings.price, max_cost)
    triage, budget = settings.triage, settings.budget
    return model_backtest.run(
        engine,
        cached,
        v2_registry(settings.project, knowledge=False),
        settings.data_dir,
        settings.home,
        project=settings.project.name,
        last=last,
        since=since,
        max_steps=min(triage.max_steps, budget.max_steps),
        max_tokens=min(triage.max_tokens, budget.max_tokens),
        offline_rows=rows,
    )


def render(found: Suggestions) -> str:
    """A short table for people."""
    lines = [f"issue #{found.issue}"]
    lines += [f"  likely duplicate of #{d.id}  {d.score:.2f}  {d.evidence}" for d in found.duplicates] or [
        "  duplicates: none above the repository's duplicate threshold"
    ]
    lines += [f"  related #{d.id}  {d.score:.2f}  {d.evidence}" for d in found.related]
    lines += [f"  label {s.name}  {s.score:.2f}" for s in found.labels] or ["  labels: none"]
    lines.append("  reply: " + (found.reply.replace("\n", "\n         ") if found.reply else "none"))
    lines.append("  " + thresholds_line(found.thresholds))
    return "\n".join(lines)


def thresholds_line(shown: dict[str, object] | None) -> str:
    """The figures a decision used, in one line (thresholds.Thresholds.shown)."""
    if not shown:
        return "thresholds: fixed"
    support = shown.get("support") or {}
    duplicate = shown.get("duplicate")
    claim = f"claim at >= {duplicate:.3f}" if isinstance(duplicate, float) else "no claim (not enough history)"
    if not shown.get("calibrated"):
        return f"thresholds: fixed (history too short to calibrate: {support}); {claim}"
    labels = shown.get("labels") or {}
    unproven = shown.get("not_enough_history") or []
    per_label = ", ".join(f"{k} >= {v:.2f}" for k, v in labels.items()) if isinstance(labels, dict) else ""
    return (
        f"thresholds (calibrated on {support}): {claim}; labels {per_label or 'none proven'}"
        f"; not enough history: {len(unproven) if isinstance(unproven, list) else 0} labels"
    )


def render_backtest(result: Result, mode: str) -> str:
    """Totals, then precision and recall per label with a bar each."""
    lines = [
        f"replayed {len(result.issues)} closed issues as of their creation ({mode} similarity)",
        f"duplicates: recall@1 {result.recall_at_1:.3f}  recall@3 {result.recall_at_3:.3f}  "
        f"false {result.false_rate:.3f}  (over {result.duplicate_support} duplicates)",
        f"claims: {result.claims}, precision {result.claim_precision:.3f}; "
        f"claims and related: recall@3 {result.related_recall_at_3:.3f}",
        f"labels: precision {result.precision:.3f}  recall {result.recall:.3f}",
        f"replies drafted: {result.replies.get('drafted', 0)} "
        f"({result.replies.get('missing_information', 0)} asking for information, "
        f"{result.replies.get('docs', 0)} pointing at docs)",
        "",
        f"{'label':<32} {'prec':>5} {'rec':>5} {'n':>4}  precision | recall",
    ]
    for name, f in sorted(result.per_label.items(), key=lambda p: (-p[1].support, p[0])):
        bars = f"{'#' * round(f.precision * 10):<10} | {'#' * round(f.recall * 10)}"
        lines.append(f"{name[:32]:<32} {f.precision:>5.2f} {f.recall:>5.2f} {f.support:>4}  {bars}")
    return "\n".join(lines)


def post_one(settings: Settings, number: int) -> int:
    """`atlas triage N --post`: start issue N's one triage run (the demo tracker's path for a new issue; a
    second call, or a webhook, starts nothing). A worker triages it and posts the card."""
    from atlas.connection import connect
    from datasets.tracker_db import ensure_db
    from tools.trackers import tracker_for
    from workers.new_issues import claim
    from workers.runs.state import Origin
    from workers.runs.triage_record import TriageRecord

    triage = settings.triage
    if not triage.enabled:
        print(
            "atlas triage: no triage channel is set (ATLAS_TRIAGE_CHANNEL or "
            "ATLAS_DISCORD_TRIAGE_CHANNEL): triage is off",
            file=sys.stderr,
        )
        return 2
    conn = connect(settings)
    ensure_db(settings.data_dir, settings.home)  # the demo tracker reads its database (built if stale)
    issue = tracker_for(settings, conn).issue(number)
    if issue is None:
        print(f"atlas triage: no issue #{number} in {settings.data_dir}", file=sys.stderr)
        return 1
    repo = settings.github.repo if settings.github is not None else "demo"
    record = TriageRecord(repo=repo, issue=number, title=issue.title, url=issue.url)
    run_id, started = claim.start(
        conn,
        settings.queue_name,
        record,
        Origin(kind=triage.platform or "slack", channel=triage.channel),
        settings.fingerprint,
        limit=None,
    )  # a maintainer asked: no rate
    print(f"triage run {run_id} " + ("queued" if started else "already started for this issue: nothing queued"))
    return 0


def check_autonomy(triage: TriageSettings, data_dir: Path, home: Path | None, model: str | None = None) -> None:
    """At start: every label `auto` would apply must have earned it in the last backtest of the engine that will
    act (issue 25; `model`: the configured model's name, whose own backtest counts), else refused with the figures."""
    if not triage.enabled or triage.mode("labels") != "auto":
        return
    figures = autonomy.acting_per_label(data_dir, home, model)
    refused = [
        v.reason for v in (autonomy.may_auto(label, figures, model) for label in triage.auto_labels) if not v.allowed
    ]
    if refused:
        raise ConfigError("ATLAS_TRIAGE_ACTIONS labels=auto is refused: " + "; ".join(refused))
