"""A benchmark's result: a titled table with a goal line, printable and serialisable."""

from __future__ import annotations

import json
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

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
        widths = [max(len(str(h)), *(len(r[i]) for r in cells)) if cells else len(str(h)) for i, h in enumerate(self.columns)]
        line = "  ".join(str(h).ljust(w) for h, w in zip(self.columns, widths, strict=True))
        out = [f"== {self.title}", line, "  ".join("-" * w for w in widths)]
        out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
        if self.goal:
            verdict = "" if self.met is None else (" [met]" if self.met else " [NOT met]")
            out.append(f"goal: {self.goal}{verdict}")
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)


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
