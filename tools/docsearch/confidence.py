"""Whether a docs search found nothing worth reading: a calibrated "the docs do not cover this".

Two signals, each measured on the RQ development questions (bench/evals/rq_docs.jsonl) and on nothing
else, separate the questions the docs cannot answer from those they can:
- the share of the question's words that no doc has at all (ordinary words included: "commercial",
  "contract", "cost"; "sign-on", "admin", "panel"), and
- the cosine similarity of the best section's best passage to the question (when ranked by meaning).
On the development set the unanswerable questions that no rare name gives away (a support contract's
price, single sign-on, a Helm chart) have 50-60% of their words in no doc and a best similarity of
0.24-0.38; no answerable question has more than 37.5% (its best similarity is then 0.49), and the one
answerable question with a similarity that low (0.37: previewing the docs site) has 33%. With no
embedding model (search by words) the best section's coverage of the question's words stands in for
the similarity: 0.11-0.25 for those three, 0.33 for the answerable question with the most words absent. The
thresholds sit between the two groups. Either signal alone mislabels answerable questions (plain
words that the docs write otherwise, a short question far from every passage), so both must agree.
A question that names a rare word no doc has (Kafka, PostgreSQL) is named by search_docs' own note
(`DocsIndex.unknown_words`); this catches the ones asked in ordinary words.

It misses those with fewer of their words in no doc: of eight more unanswerable development questions
(bench/evals/rq_docs_unanswerable.jsonl: a host's price, a spreadsheet export, a phone number; 20-40% of their
words in no doc) it catches none. A second rule tried on them (more than 18% in no doc, similarity under FAR, the
best section's score less than 0.1 ahead of the second's) caught six with no answerable development question
misjudged, but told 6 answerable held-out questions (RQ's and httpx's) that the docs do not cover them and caught no
further held-out unanswerable one, so it was dropped.
"""

from __future__ import annotations

from tools.docsearch.index import DocHit, DocsIndex
from tools.docsearch.terms import QUIET, tokens
from tools.fts_query import TERM

ABSENT_SHARE = 0.45  # more than this share of the question's words in no doc ...
FAR = 0.45  # ... and the best passage's similarity below this (ranked by meaning)
THIN = 0.3  # ... or, ranked by words only, the best section holding less than this share of the question's words
FEW_WORDS = 3  # a question of fewer distinctive words says too little to judge by its absent share


def absent_words(index: DocsIndex, query: str) -> tuple[list[str], int]:
    """The query's distinctive words (no stopwords or filler) that no doc has, and how many it has in all."""
    words = [w for w in dict.fromkeys(TERM.findall(query)) if w.lower() not in QUIET and tokens(w, QUIET)]
    return [w for w in words if tokens(w)[0] not in index.written], len(words)


def uncovered(index: DocsIndex, query: str, hits: list[DocHit]) -> list[str]:
    """The words to name when the docs likely do not cover `query` (see the module's note); [] when they may."""
    absent, total = absent_words(index, query)
    if total < FEW_WORDS or len(absent) <= ABSENT_SHARE * total:
        return []
    if hits and (hits[0].similarity >= FAR if hits[0].similarity is not None else hits[0].coverage >= THIN):
        return []
    return absent
