"""`atlas triage backtest --model`: the replay of the engine that acts when a model is configured.

Each closed issue is triaged by the worker's own call (model_triage.suggest: the same instructions,
read tools, schema and budget) as of its creation: the tools read the tracker through as_of.py (only
earlier issues, masked as the offline replay is), the docs are the offline engine's (without the issue
threads' words), and only labels used on earlier issues are offered. What the model answers is scored
exactly as the offline replay (backtest.replayed, backtest.score); where it fails, the offline engine's
suggestion stands in, as in the worker, and is counted. Side by side, the offline engine is scored on
the same issues.

The replay costs at most `max_cost` dollars (answer_cache.CostReached): it stops cleanly before the
first issue that needs a call past it, and says how many issues it replayed. Every reply is kept by
the hash of what the model saw (answer_cache.py), so a rerun makes no model call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from datasets import derived
from datasets.tracker_db import db_path
from tools.context import ToolContext
from tools.corpus import Corpus
from tools.docsearch.index import DocsIndex
from tools.registry import Registry
from workers.triage import backtest, model_triage
from workers.triage.answer_cache import FOLDER, CachedModel, CostReached
from workers.triage.as_of import AsOfIssues
from workers.triage.backtest import Replayed, Result
from workers.triage.engine import NewIssue, Triage
from workers.triage.history import History

DEFAULT_MAX_COST = 2.0  # dollars, for the whole replay


@dataclass
class ModelReplay:
    """The model's figures beside the offline engine's on the same issues, and what the replay cost."""

    model: str
    result: Result
    offline: Result  # the offline engine on the issues the model replayed
    selected: int  # the issues chosen (--last, --since): fewer are replayed when the cost limit stops it
    stopped: bool
    cost_usd: float
    max_cost_usd: float
    calls: int  # model requests made
    kept: int  # model replies read back from the kept answers
    failures: int  # issues whose model triage failed (the offline suggestion stands in, as in the worker)
    answered: Result | None = None  # the issues the model itself answered: its labels' figures for `auto`

    def as_json(self) -> dict[str, object]:
        """`atlas triage backtest --model --json`'s `model` object."""
        payload = self.result.as_json()
        return {
            "name": self.model,
            "replayed": len(self.result.issues),
            "selected": self.selected,
            "stopped_at_max_cost": self.stopped,
            "cost_usd": round(self.cost_usd, 6),
            "max_cost_usd": self.max_cost_usd,
            "model_calls": self.calls,
            "kept_answers": self.kept,
            "failures": self.failures,
            "totals": payload["totals"],
            "issues": payload["issues"],
            "offline_totals": self.offline.as_json()["totals"],
            "auto_per_label": {
                n: {"precision": f.precision, "recall": f.recall, "support": f.support}
                for n, f in sorted((self.answered or self.result).per_label.items())
            },
        }


def answers_folder(data_dir: Path, home: Path | None) -> Path:
    """Where the kept answers of `data_dir`'s repository live."""
    return derived.root(Path(data_dir), home) / "issues" / FOLDER


def run(
    triage: Triage,
    model: CachedModel,
    registry: Registry,
    data_dir: Path,
    home: Path | None,
    *,
    project: str,
    max_steps: int,
    max_tokens: int,
    last: int | None = None,
    since: str | None = None,
    offline_rows: list[Replayed] | None = None,
) -> ModelReplay:
    """Replay the chosen issues with `model` (a CachedModel: its limit and kept answers) until its cost limit."""
    history = triage.history
    chosen = backtest.select(triage, last, since)
    offline = {r.id: r for r in (offline_rows if offline_rows is not None else backtest.rows(triage, last, since))}
    names = backtest.canonical_names(history.records)
    docs = triage.docs if triage.docs is not None else DocsIndex({}, ())
    db = db_path(Path(data_dir), home)
    rows: list[Replayed] = []
    answered: list[Replayed] = []
    failures, stopped = 0, False
    for record in chosen:
        issues = AsOfIssues(db, history, triage.index, record.seq, record.when)
        ctx = ToolContext(corpus=Corpus(Path(data_dir), docs, issues, home))
        try:
            attempt = model_triage.suggest(
                model,
                registry,
                ctx,
                NewIssue(record.id, record.title, record.body),
                issues.known_labels(),
                _earlier(history, record.seq),
                max_steps=max_steps,
                max_tokens=max_tokens,
                project=project,
            )
        finally:
            issues.close()
        if attempt.failure.startswith(CostReached.__name__):
            stopped = True
            break
        if attempt.suggestions is None:
            failures += 1
            rows.append(offline[record.id])
            continue
        answered.append(backtest.replayed(record, attempt.suggestions, names, history.first_replies.get(record.id, "")))
        rows.append(answered[-1])
    return ModelReplay(
        model.name,
        backtest.score(rows),
        backtest.score([offline[r.id] for r in rows]),
        len(chosen),
        stopped,
        model.cost,
        model.max_cost,
        model.calls,
        model.kept,
        failures,
        backtest.score(answered),
    )


def _earlier(history: History, before: int) -> Callable[[int], bool]:
    """Whether an issue number is one opened before seq `before` (a duplicate the model may name)."""
    return lambda n: (r := history.get(n)) is not None and r.seq < before
