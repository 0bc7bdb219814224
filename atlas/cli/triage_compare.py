"""`atlas triage backtest --model`'s table: the offline engine and the model side by side, on the same issues."""

from __future__ import annotations

from workers.triage.backtest import Result
from workers.triage.model_backtest import ModelReplay


def rows(result: Result) -> list[tuple[str, str]]:
    """The figures both engines are scored on, in order."""
    return [
        ("duplicates recall@1", f"{result.recall_at_1:.3f}"),
        ("duplicates recall@3", f"{result.recall_at_3:.3f}"),
        ("claims on non-duplicates", f"{result.false_rate:.3f}"),
        ("claims", str(result.claims)),
        ("claim precision", f"{result.claim_precision:.3f}"),
        ("claims+related recall@3", f"{result.related_recall_at_3:.3f}"),
        ("label precision", f"{result.precision:.3f}"),
        ("label recall", f"{result.recall:.3f}"),
        ("replies drafted", str(result.replies.get("drafted", 0))),
    ]


def render(replay: ModelReplay) -> str:
    """Who replayed how many issues at what cost, then each figure for offline and model, then per label."""
    n = len(replay.result.issues)
    stop = (
        f"; stopped at the cost limit (${replay.max_cost_usd:.2f}) after {n} of {replay.selected} issues"
        if replay.stopped
        else ""
    )
    lines = [
        f"model {replay.model}: replayed {n} of {replay.selected} issues, ${replay.cost_usd:.4f} spent, "
        f"{replay.calls} model calls, {replay.kept} kept answers read back{stop}"
    ]
    if replay.failures:
        lines.append(f"  {replay.failures} model triage(s) failed: the offline suggestion stands in, as in the worker")
    lines += ["", f"{'on the same ' + str(n) + ' issues':<28} {'offline':>8} {'model':>8}"]
    for (name, offline), (_, model) in zip(rows(replay.offline), rows(replay.result), strict=True):
        lines.append(f"{name:<28} {offline:>8} {model:>8}")
    names = sorted(set(replay.offline.per_label) | set(replay.result.per_label))
    if names:
        lines += ["", f"{'label (precision / recall)':<32} {'offline':>11} {'model':>11}"]
    for name in names:
        cells = []
        for result in (replay.offline, replay.result):
            f = result.per_label.get(name)
            cells.append(f"{f.precision:.2f} / {f.recall:.2f}" if f is not None else "-")
        lines.append(f"{name[:32]:<32} {cells[0]:>11} {cells[1]:>11}")
    return "\n".join(lines)
