"""Goals as ratios: Atlas and its floor measured side by side in one run, interleaved, median of N.

Absolute milliseconds on a shared 2-core machine are noise (the same code reads 39 ms one run and
88 ms the next); the ratio to a floor measured in the same minutes is not. Every hot-path suite
builds `Ratio` rows with `interleaved` and prints them with `ratio_table`; memory per process
(RSS) goes beside them with `memory_table`.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from bench.report import Table

RATIO_COLUMNS = ["path", "Atlas", "floor", "ratio", "goal", "met"]


@dataclass(frozen=True)
class Ratio:
    """One path: Atlas's figure and its floor's from the same run; `goal` is the highest ratio allowed."""

    path: str
    atlas: float
    floor: float
    goal: float
    unit: str = "ms"
    runs: tuple[tuple[float, float], ...] = ()

    @property
    def ratio(self) -> float:
        return self.atlas / self.floor if self.floor else float("inf")

    @property
    def met(self) -> bool:
        return self.ratio <= self.goal

    def row(self) -> list[object]:
        return [
            self.path,
            _with_unit(self.atlas, self.unit),
            _with_unit(self.floor, self.unit),
            f"{self.ratio:.2f}x",
            f"<= {self.goal:g}x",
            "yes" if self.met else "NO",
        ]


def interleaved(
    atlas: Callable[[], float], floor: Callable[[], float], n: int = 3
) -> tuple[float, float, tuple[tuple[float, float], ...]]:
    """Run atlas, floor, atlas, floor ... `n` times each; the medians and every pair.

    Interleaving puts both under the same background load, so a slow minute slows both sides.
    """
    pairs = tuple((atlas(), floor()) for _ in range(n))
    return statistics.median(a for a, _ in pairs), statistics.median(f for _, f in pairs), pairs


def measure(
    path: str, atlas: Callable[[], float], floor: Callable[[], float], goal: float, unit: str = "ms", n: int = 3
) -> Ratio:
    """One `Ratio` row: `interleaved` medians of `n` runs of each side."""
    a, f, pairs = interleaved(atlas, floor, n)
    return Ratio(path, a, f, goal, unit, pairs)


def ratio_table(title: str, rows: list[Ratio], notes: list[str] | None = None) -> Table:
    """The report's format: path | Atlas | floor | ratio | goal | met, met only when every row is."""
    per_run = [
        f"{r.path}: runs (Atlas, floor) " + ", ".join(f"({_num(a)}, {_num(f)})" for a, f in r.runs)
        for r in rows
        if r.runs
    ]
    return Table(
        title=title,
        columns=RATIO_COLUMNS,
        rows=[r.row() for r in rows],
        goal="every path within its goal ratio of its floor, measured in the same run",
        met=all(r.met for r in rows),
        notes=[*(notes or []), *per_run],
    )


def rss_mib(pid: int, children: bool = True) -> float:
    """Resident memory of a process (and its children, e.g. a scheduler or work horse), MiB."""
    proc = psutil.Process(pid)
    procs = [proc, *(proc.children(recursive=True) if children else [])]
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return round(total / 2**20, 1)


def memory_table(title: str, rows: list[tuple[str, float]], notes: list[str] | None = None) -> Table:
    """Memory per process (worker, web process, floor) printed beside the ratios; no goal."""
    return Table(
        title=title, columns=["process", "RSS MiB"], rows=[[name, mib] for name, mib in rows], notes=notes or []
    )


def _num(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"


def _with_unit(value: float, unit: str) -> str:
    return f"{_num(value)} {unit}".rstrip()
