"""The live precision of each triage action, from maintainers' real decisions (workers/triage/outcomes.py), beside
the last backtest's figures: `atlas triage report` and the console's Triage page (issue 36 item 4).

A claim is what the card offered: a duplicate claim, each label, a drafted reply. It is right when the last word
on it was a yes: approved on the card and not reopened, undone or removed afterwards. A label a maintainer added
that the card never offered is counted as missed (a recall figure, not precision).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import redis

from workers.triage import autonomy, outcomes
from workers.triage.outcomes import Outcome

LATER_NO = ("reopened", "undo", "maintainer")  # what turns an approved claim into a false one


@dataclass
class Figure:
    """Claims and how many were right."""

    claims: int = 0
    right: int = 0

    @property
    def precision(self) -> float | None:
        return self.right / self.claims if self.claims else None

    def as_json(self) -> dict[str, Any]:
        return {"claims": self.claims, "right": self.right, "precision": self.precision}


@dataclass
class Report:
    repo: str
    days: int
    duplicates: Figure = field(default_factory=Figure)
    labels: Figure = field(default_factory=Figure)
    replies: Figure = field(default_factory=Figure)
    per_label: dict[str, Figure] = field(default_factory=dict)
    reopened: int = 0
    undone: int = 0
    missed_labels: int = 0
    backtest: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        dup_bt, lab_bt = self.backtest.get("duplicates") or {}, self.backtest.get("labels") or {}
        return {
            "repo": self.repo,
            "days": self.days,
            "duplicates": {
                "live": {**self.duplicates.as_json(), "reopened": self.reopened, "undone": self.undone},
                "backtest": {
                    k: dup_bt[k] for k in ("claim_precision", "recall@3", "false_rate", "support") if k in dup_bt
                },
            },
            "labels": {
                "live": {
                    **self.labels.as_json(),
                    "missed": self.missed_labels,
                    "per_label": {n: f.as_json() for n, f in sorted(self.per_label.items())},
                },
                "backtest": {k: lab_bt[k] for k in ("precision", "recall") if k in lab_bt}
                | {"per_label": lab_bt.get("per_label") or {}},
            },
            "reply": {"live": self.replies.as_json()},
        }


def report(
    conn: redis.Redis, repo: str, days: int, data_dir: Path, home: Path | None, now: datetime | None = None
) -> Report:
    """The last `days` days of `repo`'s outcomes, measured; and the last backtest's totals, as kept."""
    since = (now or outcomes.now()) - timedelta(days=days)
    found = Report(repo=repo, days=days, backtest=_backtest(data_dir, home))
    by_claim: dict[tuple[str, int, str], list[Outcome]] = {}
    for o in outcomes.load_all(conn, repo, since):
        if o.kind == "duplicate" and o.source in ("reopened", "undo"):  # about the issue's claim, whatever it named
            key = next(
                (k for k in by_claim if k[0] == "duplicate" and k[1] == o.issue), ("duplicate", o.issue, o.value)
            )
        else:
            key = (o.kind, o.issue, o.value)
        by_claim.setdefault(key, []).append(o)
        found.reopened += o.source == "reopened"
        found.undone += o.source == "undo"
    for (kind, _, value), seen in by_claim.items():
        offered = [o for o in seen if o.source == "card"]
        if not offered:
            found.missed_labels += kind == "label" and seen[-1].accepted and seen[-1].source == "maintainer"
            continue
        after = [o for o in seen if o.at >= offered[0].at and (o.source == "card" or o.source in LATER_NO)]
        right = after[-1].accepted if after else offered[-1].accepted
        figure = {"duplicate": found.duplicates, "label": found.labels, "reply": found.replies}[kind]
        figure.claims += 1
        figure.right += right
        if kind == "label":
            one = found.per_label.setdefault(value, Figure())
            one.claims += 1
            one.right += right
    return found


def _backtest(data_dir: Path, home: Path | None) -> dict[str, Any]:
    """The last backtest's totals (empty when there is none yet)."""
    path = autonomy.store_path(data_dir, home)
    try:
        totals = json.loads(path.read_text(encoding="utf-8")).get("totals")
    except (OSError, ValueError):
        return {}
    return totals if isinstance(totals, dict) else {}


def shown(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render(found: Report) -> str:
    """A short table for people: each action's live precision beside the backtest's."""
    data = found.as_json()
    dup, lab = data["duplicates"], data["labels"]

    def line(name: str, figure: Figure, backtest: float | None, note: str) -> str:
        figures = f"{shown(figure.precision):>6} {figure.right:>6}/{figure.claims:<6} {shown(backtest):>9}"
        return f"{name:<22} {figures}  {note}".rstrip()

    lines = [
        f"triage decisions on {found.repo}, last {found.days} days (live) beside the last backtest",
        f"{'action':<22} {'live':>6} {'right/claims':>13} {'backtest':>9}",
        line(
            "close as duplicate",
            found.duplicates,
            dup["backtest"].get("claim_precision"),
            f"({found.reopened} reopened, {found.undone} undone)",
        ),
        line(
            "labels",
            found.labels,
            lab["backtest"].get("precision"),
            f"({found.missed_labels} added by hand, not offered)",
        ),
        line("reply", found.replies, None, ""),
    ]
    per_bt = lab["backtest"]["per_label"]
    for name, figure in sorted(found.per_label.items(), key=lambda p: (-p[1].claims, p[0])):
        bt = per_bt.get(name) or {}
        lines.append(line(f"  label {name[:14]}", figure, bt.get("precision") if isinstance(bt, dict) else None, ""))
    if not any((found.duplicates.claims, found.labels.claims, found.replies.claims)):
        lines.append("no decision on a triage card in this period yet")
    return "\n".join(lines)
