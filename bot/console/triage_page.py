"""The Triage page: each triage action's live precision from maintainers' decisions on the cards and on GitHub,
beside the last backtest's (workers/triage/live.py; the same figures as `atlas triage report`). `?days=N`
(1 to 365, default 30) chooses the period."""

from __future__ import annotations

import redis

from atlas.settings import Settings
from bot.console.layout import table
from bot.console.web import Request, esc
from workers.triage import live

DAYS, MAX_DAYS = 30, 365


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    raw = req.query.get("days", "")
    days = int(raw) if raw.isdigit() and len(raw) <= 3 and 1 <= int(raw) <= MAX_DAYS else DAYS
    repo = settings.github.repo if settings.github is not None else "demo"
    found = live.report(conn, repo, days, settings.data_dir, settings.home)
    data = found.as_json()
    dup, lab = data["duplicates"], data["labels"]

    def row(name: str, figure: live.Figure, backtest: float | None, note: str) -> list[str]:
        return [
            esc(name),
            esc(live.shown(figure.precision)),
            esc(f"{figure.right} / {figure.claims}"),
            esc(live.shown(backtest)),
            esc(note),
        ]

    rows = [
        row(
            "Close as duplicate",
            found.duplicates,
            dup["backtest"].get("claim_precision"),
            f"{found.reopened} reopened, {found.undone} undone",
        ),
        row(
            "Add labels",
            found.labels,
            lab["backtest"].get("precision"),
            f"{found.missed_labels} added by hand, not offered",
        ),
        row("Post reply", found.replies, None, "right: posted as drafted"),
    ]
    per_bt = lab["backtest"]["per_label"]
    rows += [
        row(
            f"label {name}",
            figure,
            (per_bt.get(name) or {}).get("precision") if isinstance(per_bt.get(name), dict) else None,
            "",
        )
        for name, figure in sorted(found.per_label.items(), key=lambda p: (-p[1].claims, p[0]))
    ]
    head = ["Action", "Live precision", "Right / claims", "Last backtest", ""]
    intro = (
        f"<p>Decisions on {esc(repo)} in the last {esc(days)} days: on the triage cards (approve, reject, "
        "a dropped label, an edited reply) and on GitHub afterwards (a label removed, an issue Atlas closed reopened, "
        "an Undo).</p>"
    )
    return "Triage", f"<h1>Triage, live</h1>{intro}{table(head, rows, frozenset({1, 2, 3}))}"
