"""Replay triage on closed issues as of their creation and score it against what maintainers did.

What maintainers did is each replayed issue's final record: `duplicate_of` (the original they named)
and its final topic labels (decision and status labels are not suggestions; `duplicate` is scored
with the duplicates). The replay itself is `Triage.triage(number)`, which reads only earlier issues;
only the scoring reads the final record.

Two choices in the scoring, both about the ground truth rather than the triage:
- labels are scored on the replayed issues that carry at least one topic label: an issue nobody
  labelled says nothing about whether a suggested label was right (Black has 21 such closed issues);
- the names of one family under two schemes (`bug`, `T: bug`, `kind/bug`) are one label, named as the
  repository names it last: a repository that renamed its labels re-labelled some old issues and not others.

Each issue is decided with the thresholds the history before its creation gives (rolling.py): every
closed issue is replayed once for its raw scores, and those of the issues before it calibrate it.
Duplicates are scored in two tiers: the claim (`suggested_duplicates`, the close action: its precision,
and its false rate on non-duplicates) and the claim with the related issues (`related`: recall@3).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from workers.triage import labels as label_kinds
from workers.triage import reply, rolling
from workers.triage.engine import Suggestions, Triage
from workers.triage.history import Record
from workers.triage.thresholds import OutcomeLike

MIN_SUPPORT = 5
# A first comment asking for what a missing-information reply asks for (a version, a traceback, a reproduction).
ASKED = re.compile(
    r"\b(which|what) version|version (are|do) you|--version|traceback|full (error|output)|stack ?trace"
    r"|reproduc|minimal (example|code)|repro\b|can you (share|post|paste|provide)",
    re.IGNORECASE,
)  # a label with fewer examples among the replayed issues is left out of per_label


@dataclass(frozen=True)
class Replayed:
    """One replayed issue: what was decided beside what triage would have suggested."""

    id: int
    duplicate_of: int | None
    suggested_duplicates: list[int]
    labels: list[str]
    suggested_labels: list[str]
    reply: str | None
    asked_too: bool = False  # the first comment by someone else asked for what the reply asks for
    related: list[int] = field(default_factory=list)  # shown as related, no action
    thresholds: dict[str, object] | None = None  # what the decision used, as of the issue's creation


@dataclass(frozen=True)
class LabelFigures:
    precision: float
    recall: float
    support: int


@dataclass
class Result:
    """A backtest's figures (`totals`) and its rows."""

    issues: list[Replayed] = field(default_factory=list)
    recall_at_1: float = 0.0
    recall_at_3: float = 0.0
    false_rate: float = 0.0
    duplicate_support: int = 0
    related_recall_at_3: float = 0.0  # the original among the claim and the related issues (the first three)
    claim_precision: float = 0.0  # of the claims made, the share naming the original
    claims: int = 0
    precision: float = 0.0
    recall: float = 0.0
    per_label: dict[str, LabelFigures] = field(default_factory=dict)
    replies: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        """`atlas triage backtest --json`'s object."""
        return {
            "totals": {
                "issues": len(self.issues),
                "duplicates": {
                    "recall@1": self.recall_at_1,
                    "recall@3": self.recall_at_3,
                    "false_rate": self.false_rate,
                    "support": self.duplicate_support,
                    "related_recall@3": self.related_recall_at_3,
                    "claim_precision": self.claim_precision,
                    "claims": self.claims,
                },
                "labels": {
                    "precision": self.precision,
                    "recall": self.recall,
                    "per_label": {
                        n: {"precision": f.precision, "recall": f.recall, "support": f.support}
                        for n, f in sorted(self.per_label.items())
                    },
                },
                "replies": self.replies,
            },
            "issues": [
                {
                    "id": r.id,
                    "duplicate_of": r.duplicate_of,
                    "suggested_duplicates": r.suggested_duplicates,
                    "related": r.related,
                    "labels": r.labels,
                    "suggested_labels": r.suggested_labels,
                    "thresholds": r.thresholds,
                }
                for r in self.issues
            ],
        }


def select(triage: Triage, last: int | None, since: str | None) -> list[Record]:
    """The last `last` closed issues (in creation order), opened on or after `since` (a date)."""
    chosen = [
        r for r in triage.history.records if r.state == "closed" and (since is None or (r.created_at or "") >= since)
    ]
    return chosen[-last:] if last else chosen


def run(triage: Triage, last: int | None = None, since: str | None = None, extra: Iterable[OutcomeLike] = ()) -> Result:
    """Replay and score; each issue triaged as of its own creation, under the thresholds of the history
    before it (and of the `extra` recorded outcomes decided before it)."""
    return score(rows(triage, last, since, extra))


def rows(
    triage: Triage, last: int | None = None, since: str | None = None, extra: Iterable[OutcomeLike] = ()
) -> list[Replayed]:
    """The replayed issues of `run`, unscored (the model backtest sets its own beside them)."""
    names = canonical_names(triage.history.records)
    chosen = select(triage, last, since)
    closed = select(triage, None, None)
    if chosen:  # the replayed issues and the WINDOW closed ones before them, whose outcomes calibrate them
        first = closed.index(chosen[0])
        closed = closed[max(0, first - rolling.WINDOW) :]
    scored = {r.id: triage.score(r.id) for r in closed}
    limits = rolling.rolling(closed, {n: rolling.raw_of(s) for n, s in scored.items()}, extra)
    return [
        replayed(
            record,
            triage.decide(scored[record.id], limits[record.id]),
            names,
            triage.history.first_replies.get(record.id, ""),
        )
        for record in chosen
    ]


def canonical_names(records: list[Record]) -> dict[str, str]:
    """label -> the name its family has on the latest issue that carries the family (scoring only)."""
    last: dict[str, str] = {}
    for record in records:
        for name in record.labels:
            last[label_kinds.family(name)] = name
    return {name: last[label_kinds.family(name)] for record in records for name in record.labels}


def replayed(
    record: Record, suggestions: Suggestions, names: dict[str, str] | None = None, first_reply: str = ""
) -> Replayed:
    """What was decided (final labels, duplicate_of) beside the suggestions made at opening time."""
    names = names or {}
    decided = sorted(
        {names.get(n, n) for n in record.labels if label_kinds.suggestable(n) or label_kinds.kind(n) == "version"}
    )
    suggested = list(dict.fromkeys(names.get(s.name, s.name) for s in suggestions.labels))
    return Replayed(
        record.id,
        record.duplicate_of,
        [d.id for d in suggestions.duplicates],
        decided,
        suggested,
        suggestions.reply,
        bool(suggestions.reply and ASKED.search(first_reply) and suggestions.reply.startswith(reply.ASKING)),
        [d.id for d in suggestions.related],
        suggestions.thresholds,
    )


def score(rows: list[Replayed]) -> Result:
    """Duplicates' recall@1/@3 and false rate, labels' micro and per-label precision and recall."""
    dups = [r for r in rows if r.duplicate_of is not None]
    others = [r for r in rows if r.duplicate_of is None]
    result = Result(issues=rows, duplicate_support=len(dups))
    if dups:
        result.recall_at_1 = _ratio(sum(r.suggested_duplicates[:1] == [r.duplicate_of] for r in dups), len(dups))
        result.recall_at_3 = _ratio(sum(r.duplicate_of in r.suggested_duplicates[:3] for r in dups), len(dups))
    if dups:
        result.related_recall_at_3 = _ratio(
            sum(r.duplicate_of in (r.suggested_duplicates + r.related)[:3] for r in dups), len(dups)
        )
    claimed = [r for r in rows if r.suggested_duplicates]
    result.claims = len(claimed)
    result.claim_precision = _ratio(sum(r.suggested_duplicates[0] == r.duplicate_of for r in claimed), len(claimed))
    if others:
        result.false_rate = _ratio(sum(bool(r.suggested_duplicates) for r in others), len(others))
    hits, suggested, wanted = Counter[str](), Counter[str](), Counter[str]()
    for r in rows:
        if not r.labels:
            continue  # nobody labelled it: no decision to score suggestions against
        truth = set(r.labels)
        for name in r.suggested_labels:
            suggested[name] += 1
            hits[name] += name in truth
        for name in truth:
            wanted[name] += 1
    result.precision = _ratio(sum(hits.values()), sum(suggested.values()))
    result.recall = _ratio(sum(hits.values()), sum(wanted.values()))
    result.per_label = {
        n: LabelFigures(_ratio(hits[n], suggested[n]), _ratio(hits[n], wanted[n]), wanted[n])
        for n in wanted
        if wanted[n] >= MIN_SUPPORT
    }
    result.replies = _replies(rows)
    return result


def _replies(rows: list[Replayed]) -> dict[str, int]:
    """How many replies were drafted, of which kind, and how many asked what the first other commenter asked."""
    drafted = [r.reply for r in rows if r.reply]
    return {
        "drafted": len(drafted),
        "missing_information": sum(r.startswith(reply.ASKING) for r in drafted),
        "docs": sum(r.startswith(reply.POINTING) for r in drafted),
        "missing_information_also_asked_by_first_comment": sum(r.asked_too for r in rows),
    }


def _ratio(a: int | float, b: int | float) -> float:
    return round(a / b, 3) if b else 0.0
