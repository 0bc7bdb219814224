"""Autonomy earned: a label may be applied without a click (`auto`) only when the last backtest on
this repository of the engine that will act showed it right often enough, on enough examples: the
offline engine's (`atlas triage backtest`) with no model configured, the model's (`atlas triage
backtest --model`, kept apart with the model's name) with one; with a model and no backtest of that
model, `auto` stays off (the offline engine's figures do not vouch for a model's suggestions).

The last backtest's figures are kept per repository as a JSON file in the data folder's derived
place (`issues/triage_backtest.json`, datasets/derived.py): they are derived from the data like the
search index, must outlive a Redis flush or restart, and are read by `atlas` commands and workers
alike with no service running. Writes go to a temporary file renamed into place.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from datasets import derived
from workers.triage.engine import Suggestions

AUTO_PRECISION = 0.95
AUTO_SUPPORT = 20
STORE = "triage_backtest.json"
MODEL_STORE = "triage_backtest_model.json"  # the last model backtest, with the model's name


@dataclass(frozen=True)
class Verdict:
    """Whether `label` may be `auto`, and the sentence that says why (with the figures)."""

    label: str
    allowed: bool
    reason: str


def may_auto(label: str, per_label: dict[str, Any] | None, model: str | None = None) -> Verdict:
    """The rule of issue 25: precision >= 0.95 over >= 20 examples in the last backtest of the engine that acts
    (`model`: its name when one is configured, whose figures `per_label` then are), else refused."""
    if per_label is None and model is not None:
        return Verdict(
            label,
            False,
            f"no backtest of the model {model} on this repository yet: run "
            f"`atlas triage backtest --model` before setting {label} to auto",
        )
    if per_label is None:
        return Verdict(
            label,
            False,
            f"no backtest on this repository yet: run `atlas triage backtest` before setting {label} to auto",
        )
    figures = per_label.get(label)
    if not isinstance(figures, dict):
        return Verdict(
            label,
            False,
            f"the last backtest has no figures for {label} (fewer than 5 examples among the replayed issues)",
        )
    precision, support = float(figures.get("precision", 0.0)), int(figures.get("support", 0))
    shown = f"precision {precision:.2f} over {support} examples (needs >= {AUTO_PRECISION:.2f} over >= {AUTO_SUPPORT})"
    if precision >= AUTO_PRECISION and support >= AUTO_SUPPORT:
        return Verdict(label, True, f"{label} may be auto: {shown}")
    return Verdict(label, False, f"{label} may not be auto: {shown}")


def store_path(data_dir: Path, home: Path | None, model: bool = False) -> Path:
    """Where the last backtest (`model`: the last model backtest) of `data_dir`'s repository is kept."""
    return derived.root(Path(data_dir), home) / "issues" / (MODEL_STORE if model else STORE)


def save(data_dir: Path, home: Path | None, result: dict[str, Any], model: str | None = None) -> Path:
    """Keep `result` (backtest.Result.as_json(), or model_backtest.ModelReplay.as_json() with `model` its name)
    as this repository's last backtest of that engine."""
    path = store_path(data_dir, home, model is not None)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "totals": result["totals"],
        **(
            {
                "model": model,
                "replayed": result.get("replayed"),
                "selected": result.get("selected"),
                "auto_per_label": result.get("auto_per_label", result["totals"]["labels"]["per_label"]),
            }
            if model is not None
            else {}
        ),
    }
    fd, tmp = tempfile.mkstemp(prefix=".triage-backtest-", suffix=".json", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(payload, out, indent=1, sort_keys=True)
    os.replace(tmp, path)
    return path


def last_per_label(data_dir: Path, home: Path | None) -> dict[str, Any] | None:
    """The per-label figures of the last backtest, or None when there was none (or it is unreadable)."""
    path = store_path(data_dir, home)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        per_label = payload["totals"]["labels"]["per_label"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return per_label if isinstance(per_label, dict) else None


def last_duplicates(data_dir: Path, home: Path | None) -> dict[str, Any] | None:
    """The duplicate figures of the last backtest (recall@1, recall@3, false_rate, support), or None."""
    path = store_path(data_dir, home)
    try:
        figures = json.loads(path.read_text(encoding="utf-8"))["totals"]["duplicates"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return figures if isinstance(figures, dict) else None


def acting_per_label(data_dir: Path, home: Path | None, model: str | None) -> dict[str, Any] | None:
    """The per-label figures of the engine that acts: the offline engine's last backtest (`model` None), or the
    last model backtest when it was of `model`; None when that engine has none."""
    if model is None:
        return last_per_label(data_dir, home)
    try:
        payload = json.loads(store_path(data_dir, home, True).read_text(encoding="utf-8"))
        # the labels the model itself suggested: an issue where it failed and the offline engine stood in earns nothing
        per_label = payload["auto_per_label"] if payload.get("model") == model else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return per_label if isinstance(per_label, dict) else None


def earned_by(found: Suggestions, by: str, model: str | None) -> Suggestions:
    """What `auto` may apply of `found` (workers/new_issues/actions.py `build`'s `earned_by`): all of it when the engine
    that answered (`by`: "model" or "offline") is the one whose figures were checked at start (the model when one
    is configured), else none of its labels (the offline engine standing in for a failed model call)."""
    return found if by == ("offline" if model is None else "model") else replace(found, labels=[])
