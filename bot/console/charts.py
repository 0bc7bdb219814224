"""Bar charts as server-rendered SVG (no script), each with its numbers beside it in a table."""

from __future__ import annotations

from bot.console.layout import table
from bot.console.web import esc

WIDTH, HEIGHT, GAP = 300, 100, 1


def bars(title: str, labels: list[str], values: list[float], shown: list[str]) -> str:
    """A chart of `values` (one bar per label) titled `title`, and a table of `shown` (the values as text)."""
    top = max(values, default=0) or 1
    width = WIDTH / max(len(values), 1)
    rects = "".join(
        f'<rect x="{i * width:.1f}" y="{HEIGHT - v / top * HEIGHT:.1f}" width="{max(width - GAP, 1):.1f}" '
        f'height="{v / top * HEIGHT:.1f}"><title>{esc(label)}: {esc(text)}</title></rect>'
        for i, (label, v, text) in enumerate(zip(labels, values, shown, strict=True))
    )
    svg = (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{esc(title)}" '
        f'xmlns="http://www.w3.org/2000/svg">{rects}</svg>'
    )
    rows = [
        [esc(label), esc(text)] for label, text in zip(labels, shown, strict=True) if text not in ("0", "$0.0000", "")
    ]
    numbers = table(["Day", esc(title)], rows[::-1], frozenset({1})) if rows else "<p class=muted>Nothing yet.</p>"
    return f"<section><h2>{esc(title)}</h2>{svg}<details><summary>Numbers</summary>{numbers}</details></section>"
