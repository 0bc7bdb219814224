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

The rule above misses those with fewer of their words in no doc: of eight more unanswerable development questions
(bench/evals/rq_docs_unanswerable.jsonl: a host's price, a spreadsheet export, a phone number; 20-40% of their
words in no doc) it catches none. A second rule weighs the words by IDF: the share of the question's weight that no
doc has, times the share the best section lacks (`absent_mass`), at least ABSENT_MASS, unless the best passage is
close in meaning (FAR). The absent words of those questions are their rarest ("spreadsheet", "phone", "regions"),
the absent words of answerable ones plain ("twice", "preview", "night"). End to end on the 48 answerable and 14
unanswerable development questions (the offline answer's right source / "found nothing"), by ABSENT_MASS: off 36/48,
6/14; 0.55 36/48, 7/14; 0.5 36/48, 8/14; 0.4-0.45 36/48, 9/14; 0.35 35/48, 10/14; 0.2-0.3 35/48, 11/14. On
rq_docs_dev2.jsonl it misjudges no answerable question, but three score 0.44-0.51 and only the similarity guard
keeps them answerable; so it acts only when search ranks by meaning (by words alone it told 2 of 61 answerable
development questions that the docs do not cover them, to catch 1 more of 18).
An earlier second rule (more than 18% in no doc, similarity under FAR, the best section's score less than 0.1
ahead of the second's) caught six of the eight with no answerable development question misjudged, but told 6
answerable held-out questions (RQ's and httpx's) that the docs do not cover them and caught no further held-out
unanswerable one, so it was dropped.
"""

from __future__ import annotations

from tools.docsearch.index import DocHit, DocsIndex
from tools.docsearch.terms import QUIET, query_tokens, tokens
from tools.fts_query import TERM

ABSENT_SHARE = 0.45  # more than this share of the question's words in no doc ...
FAR = 0.45  # ... and the best passage's similarity below this (ranked by meaning)
THIN = 0.3  # ... or, ranked by words only, the best section holding less than this share of the question's words
ABSENT_MASS = 0.45  # or: the IDF-weighted share no doc has, times the share the best section lacks, at least this
FEW_WORDS = 3  # a question of fewer distinctive words says too little to judge by its absent share


def absent_words(index: DocsIndex, query: str) -> tuple[list[str], int]:
    """The query's distinctive words (no stopwords or filler) that no doc has, and how many it has in all."""
    words = [w for w in dict.fromkeys(TERM.findall(query)) if w.lower() not in QUIET and tokens(w, QUIET)]
    return [w for w in words if tokens(w)[0] not in index.written], len(words)


def uncovered(index: DocsIndex, query: str, hits: list[DocHit]) -> list[str]:
    """The words to name when the docs likely do not cover `query` (see the module's note); [] when they may."""
    absent, total = absent_words(index, query)
    if total < FEW_WORDS or not absent:
        return []
    far = not hits or (hits[0].similarity < FAR if hits[0].similarity is not None else hits[0].coverage < THIN)
    many = len(absent) > ABSENT_SHARE * total
    # weighed by IDF, only ranked by meaning: by words alone it told 2 of 61 answerable questions "not covered"
    heavy = bool(hits) and hits[0].similarity is not None and absent_mass(index, query, hits[0]) >= ABSENT_MASS
    return absent if (many or heavy) and far else []


def absent_mass(index: DocsIndex, query: str, best: DocHit) -> float:
    """How much of the question the docs leave out: the IDF-weighted share of its words that no doc has, times
    the IDF-weighted share of its words the best section lacks (1 - its coverage)."""
    weights = {t: index.weight(t) for t in query_tokens(query)}
    absent = sum(w for t, w in weights.items() if t not in index.written) / (sum(weights.values()) or 1.0)
    return absent * (1 - best.coverage)
