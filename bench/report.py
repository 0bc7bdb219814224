"""A benchmark's result: a titled table with a goal line, printable and serialisable."""

from __future__ import annotations

import json
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


@dataclass
class Table:
    """Rows of one measurement compared side by side; `goal` states the target, `met` whether it held."""

    title: str
    columns: list[str]
    rows: list[list[object]]
    goal: str = ""
    met: bool | None = None
    notes: list[str] = field(default_factory=list)

    def render(self) -> str:
        cells = [[_fmt(c) for c in row] for row in self.rows]
        widths = [
            max(len(str(h)), *(len(r[i]) for r in cells)) if cells else len(str(h)) for i, h in enumerate(self.columns)
        ]
        line = "  ".join(str(h).ljust(w) for h, w in zip(self.columns, widths, strict=True))
        out = [f"== {self.title}", line, "  ".join("-" * w for w in widths)]
        out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
        if self.goal:
            verdict = "" if self.met is None else (" [met]" if self.met else " [NOT met]")
            out.append(f"goal: {self.goal}{verdict}")
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)


OVERHEAD_GOAL_MS = 150  # a mention's answer posted, through a real worker and an instant model: p50


def overhead_table(title: str, rows: list[list[object]], notes: list[str]) -> Table:
    """Mention-to-answer latencies (rows from `measure.latency_row`, the platform's own first), judged
    on the first row's p50 (Slack's and Discord's overhead tables)."""
    p50 = rows[0][1]
    assert isinstance(p50, float | int)
    return Table(
        title=title,
        columns=["measure", "p50 ms", "p95 ms", "max ms"],
        rows=rows,
        goal=f"p50 <= {OVERHEAD_GOAL_MS} ms",
        met=p50 <= OVERHEAD_GOAL_MS,
        notes=notes,
    )


def last_tables(suite: str) -> dict[str, Any]:
    """The suite's tables as `make bench` last wrote them, by title up to its first colon (empty when
    the suite has not run on this machine): for figures set beside another platform's."""
    path = RESULTS / f"{suite}.json"
    if not path.is_file():
        return {}
    return {t["title"].split(":")[0]: t for t in json.loads(path.read_text()).get("tables", [])}


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def write(suite: str, tables: list[Table]) -> Path:
    """Save one suite's tables with the machine they ran on."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{suite}.json"
    payload = {
        "suite": suite,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "tables": [asdict(t) for t in tables],
    }
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    return path
