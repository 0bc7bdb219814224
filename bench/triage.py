"""Triage quality and cost: the backtest of issue 25 on Orbit and on real psf/black issues, and the
offline triage's CPU per issue on a 10,000-issue repository.

Quality: every closed issue replayed as of its creation (workers/triage/backtest.py), with the
titles' meaning when the embedding model is installed (else lexical, said in the table). The card
and label thresholds were chosen on Orbit only; black (../shared/evals/triage-black, read-only,
skipped when absent) is held out. Cost: 10,000 issues generated from Orbit's as in search_scale.py,
1,000 of them replayed (lexical: encoding 10,000 titles would take minutes, once).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from pathlib import Path

from atlas.settings import DEFAULT_DATA
from bench.report import Table
from bench.search_scale import generate
from datasets.tracker_db import SOURCE, ensure_db, parse_issues
from workers.triage import backtest, meaning
from workers.triage.backtest import Result
from workers.triage.engine import Triage
from workers.triage.engine_cache import EngineCache

SHARED = Path(os.environ.get("ATLAS_SHARED") or Path(__file__).resolve().parent.parent.parent / "shared")
BLACK = SHARED / "evals" / "triage-black"
GOALS = {"Orbit": (0.9, 0.05, 0.9, 0.6), "psf/black": (0.7, 0.10, 0.8, 0.5)}  # recall@3, false, precision, recall
SCALE_ISSUES, SCALE_REPLAYS, SCALE_ENCODED = 10_000, 1_000, 50


def run() -> list[Table]:
    datasets = [("Orbit", DEFAULT_DATA)] + ([("psf/black", BLACK)] if (BLACK / SOURCE).is_file() else [])
    rows, per_label, notes = [], [], []
    for name, folder in datasets:
        started = time.process_time()
        engine = Triage.open(folder)
        loaded = time.process_time() - started
        started = time.process_time()
        result = backtest.run(engine)
        replay = time.process_time() - started
        rows.append(_row(name, engine.mode, result))
        per_label.append(_labels(name, result))
        notes.append(f"{name}: loaded in {loaded:.2f} s CPU, {len(result.issues)} replays in {replay:.2f} s CPU "
                     f"({replay / max(1, len(result.issues)) * 1000:.1f} ms each); replies {result.replies}")
    if not (BLACK / SOURCE).is_file():
        notes.append(f"psf/black skipped: no {BLACK / SOURCE}")
    met = all(_met(r) for r in rows)
    quality = Table("triage backtest: each closed issue replayed as of its creation",
                    ["data", "mode", "issues", "dups", "recall@1", "recall@3", "false dup rate", "label P", "label R", "goals"],
                    rows, goal="Orbit recall@3 >= 0.9, false <= 5%, labels P >= 0.9 / R >= 0.6; "
                    "black recall@3 >= 0.7, false <= 10%, P >= 0.8 / R >= 0.5", met=met, notes=notes)
    return [quality, *per_label, _scale()]


def _row(name: str, mode: str, r: Result) -> list[object]:
    row: list[object] = [name, mode, len(r.issues), r.duplicate_support, r.recall_at_1, r.recall_at_3, r.false_rate, r.precision, r.recall]
    return [*row, "met" if _met(row) else "not met"]


def _met(row: list[object]) -> bool:
    recall3, false, precision, recall = GOALS[str(row[0])]
    return bool(float(str(row[5])) >= recall3 and float(str(row[6])) <= false and float(str(row[7])) >= precision
                and float(str(row[8])) >= recall)


def _labels(name: str, r: Result) -> Table:
    rows: list[list[object]] = [[label, f.support, f.precision, f.recall, "#" * round(f.precision * 10), "#" * round(f.recall * 10)]
                                for label, f in sorted(r.per_label.items(), key=lambda p: (-p[1].support, p[0]))]
    return Table(f"triage labels per label: {name} (>= {backtest.MIN_SUPPORT} examples)",
                 ["label", "support", "precision", "recall", "precision chart", "recall chart"], rows)


def _scale() -> Table:
    real = list(parse_issues((DEFAULT_DATA / SOURCE).read_bytes(), DEFAULT_DATA / SOURCE))
    with tempfile.TemporaryDirectory(prefix="atlas-triage-scale-") as tmp:
        folder, home = Path(tmp) / "data", Path(tmp) / "home"
        issues = list(generate(real, SCALE_ISSUES, random.Random(7)))
        _export(folder, issues)
        ensure_db(folder, home)  # the sync's cost, not the triage's
        cache = EngineCache()  # what a worker's runtime keeps (workers/triage/engine_cache.py)
        started = time.process_time()
        engine = cache.engine(folder, home, False)
        loaded = time.process_time() - started
        started = time.process_time()
        assert cache.engine(folder, home, False) is engine
        kept = time.process_time() - started
        _export(folder, [*issues, {**issues[-1], "id": SCALE_ISSUES + 1}])  # an issue opened since: a webhook's
        ensure_db(folder, home)
        started = time.process_time()
        grown = cache.engine(folder, home, False)
        grew = time.process_time() - started
        assert (cache.opened, cache.grown, len(grown.history)) == (1, 1, SCALE_ISSUES + 1)
    numbers = [r.id for r in engine.history.records][-SCALE_REPLAYS:]
    started = time.process_time()
    for number in numbers:
        engine.triage(number)
    replay = time.process_time() - started
    per_issue = replay / len(numbers) * 1000
    rows: list[list[object]] = [["load and index 10,000 issues (a worker's first triage job)", round(loaded, 2), "-"],
                                ["a later job's engine, tracker unchanged (kept)", round(kept, 4), "-"],
                                ["a later job's engine after one new issue (grown)", round(grew, 2), "-"],
                                [f"{len(numbers):,} replays (the latest issues)", round(replay, 2), round(per_issue, 2)]]
    if meaning.available():
        meaning.title_and_opening("warm", "up")  # the model's first load is the process's, not an issue's
        started = time.process_time()
        for number in numbers[:SCALE_ENCODED]:
            record = engine.history.by_id[number]
            meaning.title_and_opening(record.title, record.body)  # what Triage.triage does for a new issue
        encoded = (time.process_time() - started) / SCALE_ENCODED * 1000
        rows.append(["a new issue's title and opening vectors (hybrid)", "-", round(encoded, 2)])
        rows.append(["a new issue, hybrid: replay and vectors", "-", round(per_issue + encoded, 2)])
        per_issue += encoded
    return Table(f"triage cost over {SCALE_ISSUES:,} generated issues (CPU)", ["measure", "seconds", "ms per issue"], rows,
                 goal="under 50 ms CPU per issue; 1,000 replays under 60 s", met=per_issue < 50 and replay < 60,
                 notes=["replays by words; with the model a new issue adds its title's and opening's encoding, and the goal is on"
                        " the sum (last row)", "a worker keeps the engine between jobs: a job pays the open only when an old issue's text"
                        " changed (then as the first row); new issues, labels and closes only grow it (third row)"])


def _export(folder: Path, issues: list[dict[str, object]]) -> None:
    """Write `issues` as the folder's issues.jsonl, as a sync's export does."""
    (folder / SOURCE).parent.mkdir(parents=True, exist_ok=True)
    (folder / SOURCE).write_text("".join(json.dumps(i) + "\n" for i in issues))
