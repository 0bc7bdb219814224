"""The model backtest (`atlas triage backtest --model --max-cost`, issue 36 item 6) in `make bench`: the worker's
triage call replayed through the real openai client against the Responses stand-in (tests/standins), on the
latest closed Orbit issues, three times: a first run (every answer asked for), a rerun (every answer kept: no
request), and a run under a cap too small for the replay (it stops, and says after how many issues).

The stand-in is a scripted model, not a real one: it searches with the title, opens the best hit, then names the
hits as duplicates. Its figures measure the machinery (masking, cache, cost cap, scoring beside the offline
engine), never a model's quality.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from atlas.cli import main as cli
from atlas.settings import DEFAULT_DATA
from bench.report import Table
from tests.standins.responses_api import ScriptedModel, Turn, Usage, call_outputs, reply_calls, reply_text
from workers.triage.model_backtest import answers_folder

REPLAYED = 20  # the latest closed Orbit issues replayed
USAGE = Usage(input_tokens=1000, output_tokens=100)  # at ATLAS_PRICE 1,1,1 ($ per million): $0.0011 a request
PRICE = "1,1,1"
MAX_COST = 0.5  # the first run's cap: far above what REPLAYED issues cost here
SMALL_CAP = 0.01  # the third run's: about three issues' worth


def run() -> list[Table]:
    with tempfile.TemporaryDirectory(prefix="atlas-triage-model-") as tmp, ScriptedModel(fallback=_triager) as model:
        data = Path(tmp) / "data"
        shutil.copytree(DEFAULT_DATA, data)
        env = {
            "ATLAS_DATA": str(data),
            "ATLAS_HOME": str(Path(tmp) / "home"),
            "ATLAS_SEMANTIC": "0",
            "ATLAS_PRICE": PRICE,
            "ATLAS_MODEL_RETRIES": "0",
            **model.env(),
        }
        with _environment(env):
            first = _replay(model, MAX_COST)
            again = _replay(model, MAX_COST)
            shutil.rmtree(answers_folder(data, Path(tmp) / "home"))  # the kept answers gone: it pays again
            capped = _replay(model, SMALL_CAP)
    rows = [_row("first run", MAX_COST, first), _row("rerun (answers kept)", MAX_COST, again)]
    rows.append(_row("a new replay under a small cap", SMALL_CAP, capped))
    met = (
        first["model"]["model_calls"] > 0
        and first["model"]["replayed"] == REPLAYED
        and again["model"]["model_calls"] == 0
        and again["requests"] == 0
        and again["model"]["totals"] == first["model"]["totals"]
        and capped["model"]["stopped_at_max_cost"]
        and capped["model"]["replayed"] < REPLAYED
    )
    return [
        Table(
            f"triage backtest --model: the latest {REPLAYED} closed Orbit issues through the Responses stand-in",
            [
                "run",
                "max cost $",
                "replayed",
                "stopped at cap",
                "model requests",
                "kept answers",
                "cost $",
                "wall s",
                "CPU s",
                "model: related recall@3 / false claims / label P",
                "offline, same issues",
            ],
            rows,
            goal="a rerun makes no model request and gives the same figures; a replay stops at its --max-cost",
            met=met,
            notes=[
                "the model is the stand-in's script (search, open the best hit, name the hits): figures of the"
                " machinery, not of a model",
                f"ATLAS_PRICE {PRICE}: {USAGE.input_tokens} input and {USAGE.output_tokens} output tokens a request",
            ],
        )
    ]


def _replay(model: ScriptedModel, max_cost: float) -> dict[str, Any]:
    """One `atlas triage backtest --model --json` run: its JSON, the requests the stand-in got, wall and CPU."""
    before = len(model.bodies())
    out = io.StringIO()
    started, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out):
        code = cli.main(
            ["triage", "backtest", "--model", "--last", str(REPLAYED), "--max-cost", str(max_cost), "--json"]
        )
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    if code != 0:
        raise RuntimeError(f"atlas triage backtest --model exited {code}")
    shown: dict[str, Any] = json.loads(out.getvalue())
    shown["requests"] = len(model.bodies()) - before
    shown["wall"], shown["cpu"] = wall, used
    return shown


def _row(name: str, cap: float, shown: dict[str, Any]) -> list[object]:
    m = shown["model"]
    return [
        name,
        cap,
        f"{m['replayed']} of {m['selected']}",
        "yes" if m["stopped_at_max_cost"] else "no",
        shown["requests"],
        m["kept_answers"],
        round(float(m["cost_usd"]), 4),
        round(shown["wall"], 2),
        round(shown["cpu"], 2),
        _figures(m["totals"]),
        _figures(m["offline_totals"]),
    ]


def _figures(totals: dict[str, Any]) -> str:
    dups, labels = totals["duplicates"], totals["labels"]
    return f"{dups['related_recall@3']:.3f} / {dups['false_rate']:.3f} / {labels['precision']:.3f}"


def _triager(request: dict[str, Any]) -> Turn:
    """The scripted model: search with the title, open the best hit, then name up to three hits as duplicates
    (none when the search found nothing) and `type:bug` when the report carries a traceback."""
    data = json.loads(request["input"][0]["content"].split("\n", 1)[1])
    outputs = call_outputs(request)
    if not outputs:
        return reply_calls(
            [("search_issues", {"query": data["title"], "state": None, "limit": 5, "detail": "detailed"})], usage=USAGE
        )
    found = [int(n) for n in re.findall(r"^#(\d+) \[", "\n".join(map(str, outputs.values())), re.MULTILINE)]
    if len(outputs) == 1 and found:
        return reply_calls([("get_issue", {"issue_id": found[0], "include": ["body", "labels"]})], usage=USAGE)
    answer = {
        "duplicates": [
            {"id": n, "score": round(0.9 - k / 10, 2), "evidence": "search"} for k, n in enumerate(found[:3])
        ],
        "labels": [{"name": "type:bug", "score": 0.9}] if "Traceback" in str(data.get("body", "")) else [],
        "reply": None,
    }
    return reply_text(json.dumps(answer), usage=USAGE)


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """The variables an `atlas` process would be started with, for the CLI run in this one, then put back."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
