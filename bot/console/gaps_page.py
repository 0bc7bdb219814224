"""The Coverage gaps page: questions Atlas could not answer ("not found", unsure, failed, handed off) or that
were voted down, grouped by what they ask about, each group with its count, its questions and the docs
sections that came closest; largest and newest first; also as CSV.

Grouping uses the words docs search already stems (tools/docsearch/index.py `query_tokens`): each question joins
the group of its word that the most gap questions share. The closest sections come from the same docs index,
searched lexically (the web process loads no embedding model).
"""

from __future__ import annotations

import csv
import functools
import io
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

import redis

from atlas.connection import text
from atlas.settings import Settings
from bot.console.layout import when
from bot.console.runs_query import Row, rows
from bot.console.web import Request, Response, esc
from workers.runs import run_index

LATEST = 300  # the gaps grouped: the newest this many
GROUPS = 30
CLOSEST = 3


@dataclass
class Group:
    word: str
    rows: list[Row] = field(default_factory=list)
    closest: list[str] = field(default_factory=list)

    @property
    def newest(self) -> float:
        return max(r.created_at for r in self.rows)


@functools.lru_cache(maxsize=4096)
def _tokens(question: str) -> tuple[str, ...]:
    """The question's stemmed words, kept per process: the same gaps are grouped on every view."""
    from tools.docsearch.index import query_tokens

    return tuple(dict.fromkeys(query_tokens(question)))


def groups(conn: redis.Redis, settings: Settings, latest: int = LATEST, closest: bool = True) -> list[Group]:
    """The newest `latest` gaps, grouped; largest, then newest, first."""
    pipe = conn.pipeline(transaction=False)
    for key in (run_index.gaps_key(), run_index.facet_key("feedback", "down")):
        pipe.zrevrange(key, 0, latest - 1, withscores=True)
    newest: dict[str, float] = {}
    for found_in in pipe.execute():
        newest.update((text(member), score) for member, score in found_in)
    ids = sorted(newest, key=lambda i: -newest[i])[:latest]
    found = [row for row in rows(conn, ids) if row.gap]  # a run voted down, then up again, is no gap
    words = {row.id: _tokens(row.question) for row in found}
    shared = Counter(w for ws in words.values() for w in ws)
    by_word: dict[str, Group] = {}
    for row in found:
        ranked = sorted(words[row.id], key=lambda w: (-shared[w], w))
        word = ranked[0] if ranked else "(no words)"
        by_word.setdefault(word, Group(word)).rows.append(row)
    ordered = sorted(by_word.values(), key=lambda g: (-len(g.rows), -g.newest))[:GROUPS]
    if closest and ordered:
        from tools import open_corpus

        docs = open_corpus(settings.data_dir, settings.home, False).docs
        for group in ordered:
            group.closest = _closest(docs, " ".join(r.question for r in group.rows[:5]))
    return ordered


_searched: OrderedDict[tuple[int, str], tuple[Any, list[str]]] = OrderedDict()
_searched_lock = threading.Lock()
SEARCHES_KEPT = 1024


def _closest(docs: Any, query: str) -> list[str]:
    """The docs sections closest to `query`, kept per process for the docs index they came from (a sync that
    changes the docs makes a new index, so a new key); the same groups come back on every view."""
    key = (id(docs), query)
    with _searched_lock:
        kept = _searched.get(key)
        if kept is not None and kept[0] is docs:
            _searched.move_to_end(key)
            return kept[1]
    found = [f"{hit.doc_id}#{hit.heading}" if hit.heading else hit.doc_id
             for hit in docs.search(query, k=CLOSEST, mode="lexical")]
    with _searched_lock:
        _searched[key] = (docs, found)  # the index itself is kept with its answer, so its id is not reused
        while len(_searched) > SEARCHES_KEPT:
            _searched.popitem(last=False)
    return found


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    found = groups(conn, settings)
    body = (f'<h1>Coverage gaps</h1><p>Questions Atlas could not answer or that were voted down, grouped by what they '
            f'ask about: the docs to write next. <a href="{prefix}/gaps.csv">Download as CSV</a></p>')
    if not found:
        body += "<p class=muted>No gaps yet.</p>"
    for group in found:
        questions = "".join(f'<li><a href="{prefix}/runs/{esc(r.id)}">{esc(r.question[:200])}</a> '
                            f'<span class="tag">{esc(r.gap.replace("_", " "))}</span> <span class=muted>{esc(when(r.created_at))}</span></li>'
                            for r in group.rows[:20])
        more = f"<li class=muted>and {len(group.rows) - 20} more</li>" if len(group.rows) > 20 else ""
        near = ", ".join(esc(c) for c in group.closest) or "none"
        body += (f'<div class="card"><h2>“{esc(group.word)}” · {len(group.rows)}</h2><p>Closest docs: {near}</p>'
                 f"<ul>{questions}{more}</ul></div>")
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
            writer.writerow([group.word, len(group.rows), " ".join(group.closest), when(row.created_at), row.gap, question, row.id])
    return Response(200, out.getvalue().encode(), "text/csv; charset=utf-8",
                    [("Content-Disposition", 'attachment; filename="atlas-coverage-gaps.csv"')])
