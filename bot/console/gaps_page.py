"""The Coverage gaps page: questions Atlas could not answer ("not found", unsure, failed, handed off) or that
were voted down, grouped by what they ask about, each group with its count, its questions and the docs
sections that came closest; largest and newest first; also as CSV.

Grouping is by meaning where it can be, by words where it cannot. A worker keeps each finished gap run's
question as a sentence embedding (workers/console_data/question_vectors.py; a run voted down is embedded by the next run
a worker finishes); the questions that have one are grouped by it (bot/console/gap_clusters.py): a question joins
the group whose centroid is within cosine 0.5 of it, and groups that close merge, so "rotate the TLS certificate"
and "renewing the SSL cert" are one group though they share no word. A question without a vector (the model's
package absent, ATLAS_SEMANTIC off, a vote not yet embedded) falls back to the words docs search already stems
(tools/docsearch/terms.py `query_tokens`): it joins the group of its word that the most gap questions share, a
group by meaning named by that word if there is one. A group is named by the word most of its questions hold
(ties: the word fewest other gaps hold, then alphabetical), with its next words added when a larger group has
that name.
The closest sections of a group by meaning are those whose kept passage vectors (the data folder's
`docs_vectors.db`, read-only: tools/docsearch/kept_vectors.py) are nearest its centroid; otherwise, and when no
vectors are kept, its first questions are searched lexically in the same docs index. The web process never loads
the embedding model: it reads vectors and loads only the model's tokenizer (to find the passages' keys).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import os
import re
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

import redis

from atlas.connection import text
from atlas.settings import Settings
from bot.console.layout import when
from bot.console.runs_query import Row, rows
from bot.console.web import Request, Response, esc
from workers.console_data import index_filing, question_vectors, run_index

LATEST = 300  # the gaps grouped: the newest this many
GROUPS = 30
CLOSEST = 3
NO_WORDS = "(no words)"


@dataclass
class Group:
    word: str  # its name: the word(s) most of its questions share
    rows: list[Row] = field(default_factory=list)
    closest: list[str] = field(default_factory=list)
    centroid: Any = None  # grouped by meaning: the normalised sum of its questions' vectors (numpy); by words: None

    @property
    def newest(self) -> float:
        return max(r.created_at for r in self.rows)


@functools.lru_cache(maxsize=4096)
def _tokens(question: str) -> tuple[str, ...]:
    """The question's stemmed words, kept per process: the same gaps are grouped on every view."""
    from tools.docsearch.terms import query_tokens

    return tuple(dict.fromkeys(query_tokens(question)))


def groups(conn: redis.Redis, settings: Settings, latest: int = LATEST, closest: bool = True) -> list[Group]:
    """The newest `latest` gaps, grouped by meaning where their vectors are kept, else by words; largest, then
    newest, first. Filings still pending are filed first (workers/console_data/index_filing.py)."""
    index_filing.flush(conn)
    pipe = conn.pipeline(transaction=False)
    for key in (run_index.gaps_key(), run_index.facet_key("feedback", "down")):
        pipe.zrevrange(key, 0, latest - 1, withscores=True)
    newest: dict[str, float] = {}
    for found_in in pipe.execute():
        newest.update((text(member), score) for member, score in found_in)
    ids = sorted(newest, key=lambda i: (-newest[i], i))[:latest]
    found = [row for row in rows(conn, ids) if row.gap]  # a run voted down, then up again, is no gap
    found.sort(key=lambda r: (-r.created_at, r.id))
    words = {row.id: _tokens(row.question) for row in found}
    shared = Counter(w for ws in words.values() for w in ws)
    vectors = question_vectors.read(conn, [row.id for row in found])
    meant = _by_meaning([row for row in found if row.id in vectors], vectors)
    primary: dict[str, Group] = {}
    for group in sorted(meant, key=lambda g: (-len(g.rows), -g.newest)):
        primary.setdefault(_named(group, words, shared)[0], group)
    by_word: dict[str, Group] = {}
    for row in found:
        if row.id in vectors:
            continue
        ranked = sorted(words[row.id], key=lambda w: (-shared[w], w))
        word = ranked[0] if ranked else NO_WORDS
        (primary.get(word) or by_word.setdefault(word, Group(word))).rows.append(
            row
        )  # a namesake group by meaning takes it
    for group in meant:
        group.rows.sort(key=lambda r: (-r.created_at, r.id))
    ordered = sorted([*meant, *by_word.values()], key=lambda g: (-len(g.rows), -g.newest, g.rows[0].id))[:GROUPS]
    taken: set[str] = set()
    for group in ordered:
        group.word = _unique(_named(group, words, shared), taken)
        group.word = _spelled(group.word, group)
    if closest and ordered:
        from tools import open_corpus

        docs = open_corpus(settings.data_dir, settings.home, False).docs
        for group in ordered:
            group.closest = _closest(docs, group)
    return ordered


def _by_meaning(meant: list[Row], vectors: dict[str, Any]) -> list[Group]:
    """The rows that have vectors (newest first), grouped by them (bot/console/gap_clusters.py)."""
    if not meant:
        return []
    import numpy as np

    from bot.console.gap_clusters import by_meaning

    stack = np.stack([vectors[row.id] for row in meant])
    found = []
    for members in by_meaning(stack):
        total = stack[members].sum(axis=0)
        found.append(Group("", [meant[i] for i in members], centroid=total / (float(np.linalg.norm(total)) or 1.0)))
    return found


def _named(group: Group, words: dict[str, tuple[str, ...]], shared: Counter[str]) -> list[str]:
    """The group's words, most held by its questions first; among as many, the one the fewest gaps hold (what sets
    the group apart, not "work" that every question says), then alphabetically."""
    held = Counter(w for row in group.rows for w in words[row.id])
    return sorted(held, key=lambda w: (-held[w], shared[w], w)) or [NO_WORDS]


def _spelled(name: str, group: Group) -> str:
    """The name as its questions spell it: each stem ("rotat") shown as the word most of them wrote ("rotate")."""
    written: dict[str, Counter[str]] = {}
    for row in group.rows:
        for word in re.findall(r"[\w.-]+", row.question.lower()):
            for stem in _tokens(word):
                written.setdefault(stem, Counter())[word.strip(".-")] += 1
    return re.sub(r"[^\s,()]+", lambda m: written[m[0]].most_common(1)[0][0] if m[0] in written else m[0], name)


def _unique(ranked: list[str], taken: set[str]) -> str:
    """A name for the group: its first word, with the next one or two while a larger group already has that name
    (the CSV's group column tells groups apart); then a number."""
    names = [", ".join(ranked[:n]) for n in range(1, min(3, len(ranked)) + 1)]
    name = next((n for n in names if n not in taken), "")
    number = 2
    while not name or name in taken:
        name, number = f"{ranked[0]} ({number})", number + 1
    taken.add(name)
    return name


_searched: OrderedDict[tuple[int, str], tuple[Any, list[str]]] = OrderedDict()
_searched_lock = threading.Lock()
SEARCHES_KEPT = 1024
# id(docs index) -> (the index, its KeptSections or None, the store's stamp, when read)
_kept: OrderedDict[int, tuple[Any, Any, str, float]] = OrderedDict()
KEPT_INDEXES = 2
REREAD_SECONDS = 60


def _closest(docs: Any, group: Group) -> list[str]:
    """The docs sections closest to the group, kept per process for the docs index they came from (a sync that
    changes the docs makes a new index, so a new key); the same groups come back on every view. A group by
    meaning is ranked by its centroid against the sections' kept vectors when the data folder has them
    (read-only, no model: tools/docsearch/kept_vectors.py); otherwise its questions are searched by words."""
    kept, stamp = _kept_sections(docs) if group.centroid is not None else (None, "")
    members = hashlib.sha256(",".join(sorted(r.id for r in group.rows)).encode()).hexdigest()
    query = f"meaning:{stamp}:{members}" if kept is not None else " ".join(r.question for r in group.rows[:5])
    key = (id(docs), query)
    with _searched_lock:
        found = _searched.get(key)
        if found is not None and found[0] is docs:
            _searched.move_to_end(key)
            return found[1]
    if kept is not None:
        import numpy as np

        scores = kept.scores(group.centroid)
        best = [int(i) for i in np.argsort(-scores, kind="stable")[:CLOSEST] if scores[i] > -1.0]
        sections = docs.sections
        hits = [(sections[i][0], sections[i][2]) for i in best]
    else:
        hits = [(hit.doc_id, hit.heading) for hit in docs.search(query, k=CLOSEST, mode="lexical")]
    named = [f"{doc_id}#{heading}" if heading else doc_id for doc_id, heading in hits]
    with _searched_lock:
        _searched[key] = (docs, named)  # the index itself is kept with its answer, so its id is not reused
        while len(_searched) > SEARCHES_KEPT:
            _searched.popitem(last=False)
    return named


def _kept_sections(docs: Any) -> tuple[Any, str]:
    """The docs index's kept section vectors (None: rank by words) and a stamp of the store they were read from,
    read once per index and process, and again when the store has changed (a worker embeds new passages in
    the background), at most every REREAD_SECONDS."""
    store = docs.vectors_store
    try:
        stat = os.stat(store) if store is not None else None
        stamp = f"{stat.st_mtime_ns}:{stat.st_size}" if stat is not None else ""
    except OSError:
        stamp = ""
    now = time.monotonic()
    with _searched_lock:
        found = _kept.get(id(docs))
        if found is not None and found[0] is docs and (found[2] == stamp or now - found[3] < REREAD_SECONDS):
            return found[1], found[2]
    from tools.docsearch.kept_vectors import read

    kept = read([(title, heading, text) for _, title, heading, text in docs.sections], store) if stamp else None
    with _searched_lock:
        _kept[id(docs)] = (docs, kept, stamp, now)
        while len(_kept) > KEPT_INDEXES:
            _kept.popitem(last=False)
    return kept, stamp


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    found = groups(conn, settings)
    body = (
        f"<h1>Coverage gaps</h1><p>Questions Atlas could not answer or that were voted down, grouped by what they "
        f'ask about: the docs to write next. <a href="{prefix}/gaps.csv">Download as CSV</a></p>'
    )
    if not found:
        body += "<p class=muted>No gaps yet.</p>"
    for group in found:
        questions = "".join(
            f'<li><a href="{prefix}/runs/{esc(r.id)}">{esc(r.question[:200])}</a> '
            f'<span class="tag">{esc(r.gap.replace("_", " "))}</span> '
            f"<span class=muted>{esc(when(r.created_at))}</span></li>"
            for r in group.rows[:20]
        )
        more = f"<li class=muted>and {len(group.rows) - 20} more</li>" if len(group.rows) > 20 else ""
        near = ", ".join(esc(c) for c in group.closest) or "none"
        body += (
            f'<div class="card"><h2>“{esc(group.word)}” · {len(group.rows)}</h2><p>Closest docs: {near}</p>'
            f"<ul>{questions}{more}</ul></div>"
        )
    return "Coverage gaps", body


def csv_export(conn: redis.Redis, settings: Settings) -> Response:
    """Every grouped gap as a CSV row: group, count, closest docs, when, why, question, run."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["group", "group_count", "closest_docs", "asked_utc", "reason", "question", "run_id"])
    for group in groups(conn, settings):
        for row in group.rows:
            question = row.question
            if question[:1] in ("=", "+", "-", "@", "\t", "\r"):
                question = "'" + question  # a spreadsheet must not run it as a formula
            writer.writerow(
                [group.word, len(group.rows), " ".join(group.closest), when(row.created_at), row.gap, question, row.id]
            )
    return Response(
        200,
        out.getvalue().encode(),
        "text/csv; charset=utf-8",
        [("Content-Disposition", 'attachment; filename="atlas-coverage-gaps.csv"')],
    )
