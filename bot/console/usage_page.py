"""The Cost and use page: per day, questions, cost, tokens per answer, the offline model's share, steps per
run and feedback, from the daily figures filed as runs end and the vote sets (workers/console_data/run_index.py):
three reads per day shown, in one round trip; above them, today's spend against the caps (spend_table.py)."""

from __future__ import annotations

import time

import redis

from atlas.connection import text
from atlas.settings import Settings
from bot.console import spend_table
from bot.console.charts import bars
from bot.console.layout import table
from bot.console.web import Request, esc
from workers.console_data import run_index

DAYS = 30
FIELDS = ("runs", "cost_micro", "tokens", "steps", "offline", "answered", "gaps")
DAY = 86400


def daily(conn: redis.Redis, days: int = DAYS, now: float | None = None) -> list[tuple[str, dict[str, int]]]:
    """The last `days` days' figures, oldest first; `up` and `down`: that day's runs voted up or down (ZCOUNT)."""
    now = time.time() if now is None else now
    starts = [(now // DAY - (days - 1 - n)) * DAY for n in range(days)]
    pipe = conn.pipeline(transaction=False)
    for start in starts:
        pipe.hgetall(run_index.day_key(run_index.day_of(start)))
        for vote in ("up", "down"):
            pipe.zcount(run_index.facet_key("feedback", vote), start, f"({start + DAY}")
    found = pipe.execute()
    out = []
    for n, start in enumerate(starts):
        raw, up, down = found[3 * n : 3 * n + 3]
        figures = {f: int(text(raw.get(f.encode(), b"0"))) for f in FIELDS}
        out.append((run_index.day_of(start), {**figures, "up": int(up), "down": int(down)}))
    return out


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    days = daily(conn)
    labels = [d for d, _ in days]
    figures = [f for _, f in days]

    def per(top: str, bottom: str) -> list[float]:
        return [f[top] / f[bottom] if f[bottom] else 0.0 for f in figures]

    runs = [float(f["runs"]) for f in figures]
    cost = [f["cost_micro"] / 1e6 for f in figures]
    tokens = per("tokens", "runs")
    offline = [100 * v for v in per("offline", "runs")]
    steps = per("steps", "runs")
    up, down = [float(f["up"]) for f in figures], [float(f["down"]) for f in figures]
    charts = "".join(
        [
            bars("Questions per day", labels, runs, [f"{v:.0f}" for v in runs]),
            bars("Cost per day", labels, cost, [f"${v:.4f}" for v in cost]),
            bars("Tokens per answer", labels, tokens, [f"{v:.0f}" for v in tokens]),
            bars("Answered offline (%)", labels, offline, [f"{v:.0f}" for v in offline]),
            bars("Steps per run", labels, steps, [f"{v:.1f}" for v in steps]),
            bars("Runs voted up", labels, up, [f"{v:.0f}" for v in up]),
            bars("Runs voted down", labels, down, [f"{v:.0f}" for v in down]),
        ]
    )
    total = {f: sum(d[f] for d in figures) for f in (*FIELDS, "up", "down")}
    summary = table(
        ["Last 30 days", ""],
        [
            ["Questions", esc(total["runs"])],
            ["Cost", esc(f"${total['cost_micro'] / 1e6:.4f}")],
            ["Tokens per answer", esc(f"{total['tokens'] / total['runs']:.0f}" if total["runs"] else "-")],
            ["Answered offline", esc(f"{100 * total['offline'] / total['runs']:.0f}%" if total["runs"] else "-")],
            ["Steps per run", esc(f"{total['steps'] / total['runs']:.1f}" if total["runs"] else "-")],
            ["Coverage gaps", esc(total["gaps"])],
            ["Runs voted up / down", esc(f"{total['up']} / {total['down']}")],
        ],
        frozenset({1}),
    )
    today = spend_table.render(conn, settings)  # today's spend by channel and repository against the caps
    return "Cost and use", f'<h1>Cost and use</h1>{today}{summary}<div class="charts">{charts}</div>'
