"""Likely duplicates among earlier issues: similarity, agreement on version and labels, known originals.

A candidate's score is its similarity to the new issue (similarity.py, blended with the titles'
meaning when the model is installed), moved up or down by whether both name the same version,
and scaled by how well its labels agree with the labels the neighbours vote for the new issue (a
question is rarely a duplicate of a bug report). With the model, half of it is the cosine of the two
issues' openings (meaning.opening: the title and the first prose words), which is where two reports
of one problem tell it in their own words. Sharing an error code or an exception name (`ORB-1601`,
`KeyError`) adds a little. A candidate that was already closed as a duplicate *before* the new issue
was opened stands aside for its original, which takes its score: maintainers point new reports at
the original, not at an earlier duplicate.

The score is then calibrated against the issue's other candidates: a share of the best *other*
candidate's score is taken off. An issue close to one earlier issue is a duplicate; an issue about
as close to several (the tenth "INTERNAL ERROR: Black produced different code on the second pass")
is a common kind of report, and its best candidate is less likely to be its original.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from workers.triage import signatures
from workers.triage.history import History, Record, known_before
from workers.triage.versions import reported_versions

VERSION_AGREES = 0.05  # both name the same version: a little closer; different versions: a little further
LABELS_FLOOR = 0.6  # a candidate none of whose labels the new issue's neighbours vote for keeps this share of its score
OPENING_SHARE = 0.5  # with the model: this share of the score is the openings' cosine
SHARED_SIGNAL = 0.06  # both name the same error code or exception type
MARGIN = 0.3  # this share of the best other candidate's score is taken off each candidate's
SIGNAL = re.compile(r"\b[A-Z][A-Z0-9]+-\d{3,}\b|\b[A-Z]\w*(?:Error|Exception)\b")


@dataclass(frozen=True)
class Candidate:
    id: int
    score: float
    via: int | None = None  # the earlier duplicate that pointed here
    reasons: tuple[str, ...] = ()  # the evidence for and against that moved the score (signatures.weigh)


def rank(
    history: History,
    versions: list[frozenset[str]],
    families: list[frozenset[str]],
    query_text: str,
    when: str,
    similar: dict[int, float],
    votes: dict[str, float],
    limit: int,
    openings: dict[int, float] | None = None,
    signals: list[frozenset[str]] | None = None,
    marks: tuple[signatures.Signature, list[signatures.Signature]] | None = None,
) -> list[Candidate]:
    """The best `limit` originals for a new issue, from its similarity to each earlier issue (by seq);
    `versions[seq]` are the versions each issue's report names (`versions_named`), `families[seq]` its
    topic label families (`LabelBook.families`), `openings[seq]` the openings' cosine (with the model),
    `signals[seq]` the error codes and exception names it names (`signals_named`); `marks`: the new report's
    signature and each earlier issue's, by seq (signatures.py: errors, frames, identifiers, references),
    weighed for and against."""
    mine = set(reported_versions(query_text))
    my_signals = named_signals(query_text)
    scored: dict[int, Candidate] = {}
    for seq, sim in similar.items():
        record = history.records[seq]
        score = sim * _label_agreement(families[seq], votes) + _version_term(mine, versions[seq])
        if openings is not None:
            score = (1 - OPENING_SHARE) * score + OPENING_SHARE * openings.get(seq, 0.0)
        if signals is not None and my_signals & signals[seq]:
            score += SHARED_SIGNAL
        reasons: tuple[str, ...] = ()
        if marks is not None:
            weighed = signatures.weigh(marks[0], marks[1][seq], record.id)
            score += weighed.delta
            reasons = weighed.reasons
        if mine and versions[seq] and not mine & versions[seq]:
            reasons += (f"different versions ({max(mine)} vs {max(versions[seq])})",)
        target, via = record.id, None
        original = history.get(record.duplicate_of) if record.duplicate_of else None
        if original is not None and original.seq < seq and known_before(record.duplicate_since, when):
            target, via = original.id, record.id
        if target not in scored or scored[target].score < score:
            scored[target] = Candidate(target, score, via, reasons)
    best = sorted(scored.values(), key=lambda c: (-c.score, -c.id))
    calibrated = [
        Candidate(c.id, round(c.score - MARGIN * _best_other(best, i), 3), c.via, c.reasons)
        for i, c in enumerate(best[:limit])
    ]
    return sorted(calibrated, key=lambda c: (-c.score, -c.id))


def _best_other(ranked: list[Candidate], i: int) -> float:
    """The best score among the candidates other than the i-th (ranked best first)."""
    others = ranked[1:2] if i == 0 else ranked[:1]
    return max(0.0, others[0].score) if others else 0.0


def named_signals(text: str) -> frozenset[str]:
    """The error codes and exception type names a text names: strong evidence of one problem when shared."""
    return frozenset(SIGNAL.findall(text))


def signals_named(records: Sequence[Record]) -> list[frozenset[str]]:
    """The signals each issue's report names, by seq (computed once per history, and for the issues it grows by)."""
    return [named_signals(f"{r.title}\n{r.body}") for r in records]


def versions_named(records: Sequence[Record]) -> list[frozenset[str]]:
    """The versions each issue's report names, by seq (computed once per history, and for the issues it grows by)."""
    return [frozenset(reported_versions(f"{r.title}\n{r.body}")) for r in records]


def _version_term(mine: set[str], theirs: frozenset[str]) -> float:
    if not mine or not theirs:
        return 0.0
    return VERSION_AGREES if mine & theirs else -VERSION_AGREES


def _label_agreement(families: frozenset[str], votes: dict[str, float]) -> float:
    if not families or not votes:
        return 1.0
    share = sum(votes.get(f, 0.0) for f in families) / len(families)
    return LABELS_FLOOR + (1 - LABELS_FLOOR) * min(1.0, share)
