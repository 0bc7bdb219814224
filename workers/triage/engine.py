"""Offline triage of one issue: likely duplicates, labels, a drafted reply; no language model, no writes.

Similarity is by words (similarity.py) and, when the embedding model's package is installed and
ATLAS_SEMANTIC is on, also by the meaning of the titles and of the openings (meaning.py): `mode`
says which ("lexical" or "hybrid"); each mode has its own card threshold, on the calibrated score
of duplicates.py.

`Triage.triage(issue)` reads only issues opened before `issue` (`History` seq order): they are the
duplicate candidates and the neighbours whose labels are voted, and only labels used on them are
known. The issue's own labels, comments and state are never read. Issue text is data: it is turned
into word counts and nothing in it is obeyed ("close #12" is two words, and `#12` is dropped); a
reporter's "same as #N" is evidence for #N's score (signatures.py), never an action.

Two steps (issue 36): `score(issue)` ranks every candidate and every label with its raw score, and
`decide(scored, thresholds)` applies a repository's calibrated thresholds (thresholds.py, rolling.py):
the best candidate is *claimed* ("likely duplicate", the close action) only above the duplicate
threshold, and the next (or, with no claim, the first) up to three are *related*: links with their
evidence, no action. Without thresholds (`thresholds=None`) the fixed ones below apply: the engine's
own tests use them; every live path and the backtest pass calibrated ones.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np

from datasets import derived
from datasets.tracker_db import ensure_db
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import load_pages
from workers.triage import duplicates, meaning, reply, signatures
from workers.triage import labels as label_kinds
from workers.triage.cues import cues, sections
from workers.triage.evidence import explain
from workers.triage.history import History
from workers.triage.label_votes import LabelBook
from workers.triage.similarity import AsOfIndex, features
from workers.triage.suggestions import DuplicateSuggestion, LabelScore, LabelSuggestion, NewIssue, Scored, Suggestions
from workers.triage.thresholds import Thresholds

# Card thresholds, chosen on the Orbit demo only (python -m bench triage; black is the held-out set).
DUPLICATE_THRESHOLD = {"lexical": 0.271, "hybrid": 0.384}  # the lowest whose false rate on Orbit's replay is <= 5%
MAX_DUPLICATES = 3  # claimed and related together
RELATED_FLOOR = 0.05  # a related issue's score is at least this: below it, nothing is shown
CROWD = 10  # a title's crowd: its nearest earlier titles, whose mean similarity is subtracted
ABOVE_CROWD = 2.0  # what is left is doubled, back to the scale of the word similarity
CANDIDATES = 30  # nearest earlier issues looked at, by words and by meaning each
LEXICAL_SHARE = 0.5  # with the model: this share of the word similarity, the rest the titles' meaning
# What a triage gives, in workers/triage/suggestions.py: imported from here by the callers as before.
__all__ = ["DuplicateSuggestion", "LabelSuggestion", "NewIssue", "Scored", "Suggestions", "Triage"]


class Triage:
    """One tracker's history and docs, indexed once; triage any issue as of its creation."""

    def __init__(
        self, history: History, docs: DocsIndex | None = None, semantic: bool = False, store: Path | None = None
    ) -> None:
        self.history = history
        self.docs = docs
        self.index = AsOfIndex([features(r.title, r.body) for r in history.records])
        self.book = LabelBook(history, self.index)
        self.versions = duplicates.versions_named(history.records)
        self.signals = duplicates.signals_named(history.records)
        self.marks = signatures.of_records([(r.title, r.body) for r in history.records])
        self.titles = meaning.title_vectors([r.title for r in history.records], store) if semantic else None
        self.openings = (
            None
            if self.titles is None
            else meaning.title_vectors(
                [meaning.opening(r.title, r.body) for r in history.records],
                store.with_name(meaning.OPENINGS) if store else None,
            )
        )
        self.mode = "hybrid" if self.titles is not None else "lexical"
        self.derived = store.parent if store is not None else None  # the data folder's derived issues/ (opened ones)
        self.calibration: object = None  # rolling.Live: the live calibration's state, shared with a grown engine

    @classmethod
    def open(
        cls, data_dir: Path, home: Path | None = None, semantic: bool = True, history: History | None = None
    ) -> Triage:
        """The triage of a data folder: its tracker database (built if stale), its docs (without the issue
        threads' words, which would let later issues in), and title vectors when the model is installed.
        `history`: the database as already read (a worker's cache read it to see whether it changed)."""
        docs_dir = Path(data_dir) / "docs"
        docs = DocsIndex(load_pages(docs_dir), ()) if docs_dir.is_dir() else None
        store = derived.root(Path(data_dir), home) / "issues" / meaning.STORE
        history = history if history is not None else History.from_db(ensure_db(Path(data_dir), home))
        return cls(history, docs, semantic, store)

    def grown(self, history: History) -> Triage | None:
        """This triage over `history`, a later read of the same tracker, when that only added issues after
        this one's (each earlier issue's title and body unchanged, in the same order): what comes of the
        text (the word index; versions, signals, cues and vectors by seq) is extended by the new issues, not
        rebuilt; labels, states and duplicate decisions, which change on old issues too, are read anew from
        `history`. None when it did more (an edited or reordered issue): open it anew. Equal to
        `Triage(history, ...)`, in a fraction of the time."""
        old, new = self.history.records, history.records
        if len(new) < len(old) or any(
            a.id != b.id or a.title != b.title or a.body != b.body for a, b in zip(old, new[: len(old)], strict=True)
        ):
            return None
        added = new[len(old) :]
        grown = copy.copy(self)  # the docs and the mode are this one's
        grown.history = history
        grown.index = AsOfIndex([features(r.title, r.body) for r in added], base=self.index)
        grown.book = LabelBook(
            history,
            grown.index,
            self.book.shown + [cues(r.title, r.body) for r in added],
            self.book.headings + [sections(r.body) for r in added],
        )
        grown.versions = self.versions + duplicates.versions_named(added)
        grown.signals = self.signals + duplicates.signals_named(added)
        grown.marks = self.marks + signatures.of_records([(r.title, r.body) for r in added])
        grown.titles = grown.openings = None
        if (
            self.titles is not None and self.openings is not None
        ):  # the few new ones encoded, the store left to the next open
            titles = meaning.title_vectors([r.title for r in added], None)
            openings = meaning.title_vectors([meaning.opening(r.title, r.body) for r in added], None)
            assert titles is not None and openings is not None  # the model that encoded the rest is loaded
            grown.titles, grown.openings = (
                np.concatenate((self.titles, titles)),
                np.concatenate((self.openings, openings)),
            )
        return grown

    def triage(self, issue: int | NewIssue, thresholds: Thresholds | None = None) -> Suggestions:
        """Suggestions for an issue of the history (as of its creation) or a new one (as of now), under
        `thresholds` (a repository's calibration; None: the fixed ones)."""
        return self.decide(self.score(issue), thresholds)

    def score(self, issue: int | NewIssue, limit: int = MAX_DUPLICATES) -> Scored:
        """Every candidate and label of an issue with its raw score, as of its creation (or now, for a new one);
        `limit`: the best candidates kept (their scores do not depend on it: a draft's open matches rank more)."""
        if isinstance(issue, int):
            record = self.history.get(issue)
            if record is None:
                raise KeyError(issue)
            vectors = (
                None
                if self.titles is None or self.openings is None
                else (self.titles[record.seq], self.openings[record.seq])
            )
            return self._triage(record.id, record.title, record.body, record.seq, record.when, vectors, limit)
        known = self.history.get(issue.number)
        before = known.seq if known is not None else len(self.history)
        when = known.when if known is not None else (issue.created_at or "9999")
        vectors = None
        if self.titles is not None:  # both in one pass, side by side: no padding, the weights read once
            vectors = meaning.title_and_opening(issue.title, issue.body)
        return self._triage(issue.number, issue.title, issue.body, before, when, vectors, limit)

    def _triage(
        self,
        number: int,
        title: str,
        body: str,
        before: int,
        when: str,
        vectors: tuple[np.ndarray, np.ndarray] | None,
        limit: int = MAX_DUPLICATES,
    ) -> Scored:
        """`vectors`: the issue's title and opening vectors (hybrid mode), else None."""
        terms = features(title, body)
        lexical = {n.seq: n.similarity for n in self.index.nearest(terms, before, CANDIDATES)}
        similar = self._similar(lexical, before, None if vectors is None else vectors[0])
        mine = signatures.of(title, body)
        for named in mine.references | mine.mentions:  # an earlier issue the report names is a candidate
            old = self.history.get(named)
            if old is not None and old.seq < before and old.id != number:
                similar.setdefault(old.seq, 0.0)
        votes = self.book.votes(similar)
        openings = None
        if vectors is not None and self.openings is not None and similar:
            seqs = np.fromiter(similar, dtype=np.int64)
            openings = dict(zip(seqs.tolist(), (self.openings[seqs] @ vectors[1]).tolist(), strict=True))
        found = duplicates.rank(
            self.history,
            self.versions,
            self.book.families,
            f"{title}\n{body}",
            when,
            similar,
            votes,
            limit,
            openings,
            self.signals,
            (mine, self.marks),
        )
        labels = [
            LabelScore(n, "version" if label_kinds.kind(n) == "version" else label_kinds.family(n), s, e)
            for n, s, e in self.book.scores(votes, title, body, before, terms)
        ]
        return Scored(number, title, body, before, found, labels, reply.draft(title, body, self.docs))

    def decide(self, scored: Scored, thresholds: Thresholds | None = None) -> Suggestions:
        """The suggestions `scored` comes to under `thresholds`: a claim above the duplicate threshold, related
        issues below it, and each label whose score reaches its own threshold."""
        limits = thresholds if thresholds is not None else Thresholds.fixed(DUPLICATE_THRESHOLD[self.mode])
        title, body = scored.title, scored.body
        idf = self.index.idf(scored.before) if scored.candidates else None

        unseen = float(np.log((scored.before + 1.0) / 0.5))  # the idf of a term no earlier issue had (similarity.idf)

        def weight(term: str) -> float:
            # a term only later issues have is in the vocabulary but unknown as of the issue: weighed as an unknown one
            tid = self.index.vocab.get(term)
            value = float(idf[tid]) if idf is not None and tid is not None else 1.0
            return 1.0 if value >= unseen - 1e-9 else value

        def shown(c: duplicates.Candidate) -> DuplicateSuggestion:
            old = self.history.by_id[c.id]
            why = "; ".join(p for p in (*c.reasons, explain((title, body), (old.title, old.body), weight)) if p)
            return DuplicateSuggestion(
                c.id, c.score, why + (f" (via #{c.via}, closed as its duplicate)" if c.via else "")
            )

        ranked = scored.candidates
        claimed = ranked[:1] if ranked and limits.duplicate is not None and ranked[0].score >= limits.duplicate else []
        related = [c for c in ranked[len(claimed) :] if c.score >= RELATED_FLOOR][: MAX_DUPLICATES - len(claimed)]
        labels = [
            LabelSuggestion(s.name, s.score, s.evidence)
            for s in scored.labels
            if (t := limits.label(s.family)) is not None and s.score >= t
        ]
        return Suggestions(
            scored.issue, [shown(c) for c in claimed], labels, scored.reply, [shown(c) for c in related], limits.shown()
        )

    def _similar(self, lexical: dict[int, float], before: int, title_vector: np.ndarray | None) -> dict[int, float]:
        """seq -> similarity of the nearest earlier issues: by words (`lexical`), blended with the titles' meaning."""
        if self.titles is None or title_vector is None or before == 0:
            return lexical
        meaning_sims = self.titles[:before] @ title_vector
        top = np.argsort(-meaning_sims, kind="stable")[:CANDIDATES]
        # Meaning counts above the crowd only: a generic title ("INTERNAL ERROR: Black produced different
        # code on the second pass") is near many earlier titles, and that says nothing about which one.
        crowd = float(np.mean(meaning_sims[top[:CROWD]]))
        meaning_sims = np.clip(meaning_sims - crowd, 0.0, None) * ABOVE_CROWD
        seqs = set(lexical) | {int(s) for s in top}
        return {
            s: round(LEXICAL_SHARE * lexical.get(s, 0.0) + (1 - LEXICAL_SHARE) * max(0.0, float(meaning_sims[s])), 6)
            for s in seqs
        }
