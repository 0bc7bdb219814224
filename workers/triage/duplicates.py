"""Likely duplicates among earlier issues: similarity, agreement on version and labels, known originals.

A candidate's score is its similarity to the new issue (similarity.py, blended with the titles'
meaning when the model is installed), moved up or down by whether both name the same version,
and scaled by how well its labels agree with the labels the neighbours vote for the new issue (a
question is rarely a duplicate of a bug report). A candidate that was already closed as a duplicate
*before* the new issue was opened stands aside for its original, which takes its score: maintainers
point new reports at the original, not at an earlier duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass

from workers.triage.history import History, known_before
from workers.triage.versions import reported_versions

VERSION_AGREES = 0.05  # both name the same version: a little closer; different versions: a little further
LABELS_FLOOR = 0.6  # a candidate none of whose labels the new issue's neighbours vote for keeps this share of its score


@dataclass(frozen=True)
class Candidate:
    id: int
    score: float
    via: int | None = None  # the earlier duplicate that pointed here


def rank(history: History, versions: list[frozenset[str]], families: list[frozenset[str]], query_text: str, when: str,
         similar: dict[int, float], votes: dict[str, float], limit: int) -> list[Candidate]:
    """The best `limit` originals for a new issue, from its similarity to each earlier issue (by seq);
    `versions[seq]` are the versions each issue's report names (`versions_named`), `families[seq]` its
    topic label families (`LabelBook.families`)."""
    mine = set(reported_versions(query_text))
    scored: dict[int, Candidate] = {}
    for seq, sim in similar.items():
        record = history.records[seq]
        score = sim * _label_agreement(families[seq], votes) + _version_term(mine, versions[seq])
        target, via = record.id, None
        original = history.get(record.duplicate_of) if record.duplicate_of else None
        if original is not None and original.seq < seq and known_before(record.duplicate_since, when):
            target, via = original.id, record.id
        if target not in scored or scored[target].score < score:
            scored[target] = Candidate(target, round(score, 3), via)
    return sorted(scored.values(), key=lambda c: (-c.score, -c.id))[:limit]


def versions_named(history: History) -> list[frozenset[str]]:
    """The versions each issue's report names, by seq (computed once per history)."""
    return [frozenset(reported_versions(f"{r.title}\n{r.body}")) for r in history.records]


def _version_term(mine: set[str], theirs: frozenset[str]) -> float:
    if not mine or not theirs:
        return 0.0
    return VERSION_AGREES if mine & theirs else -VERSION_AGREES


def _label_agreement(families: frozenset[str], votes: dict[str, float]) -> float:
    if not families or not votes:
        return 1.0
    share = sum(votes.get(f, 0.0) for f in families) / len(families)
    return LABELS_FLOOR + (1 - LABELS_FLOOR) * min(1.0, share)
