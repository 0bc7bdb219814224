"""Search quality on the Orbit data.

1. Duplicates: for every issue marked duplicate_of, search by its title; is the original in the top 5
   (the duplicate itself excluded)? recall@5 for the FTS5 bm25 index vs the LIKE-scan scorer.
2. Error codes: `What does ORB-xxxx mean?` for every code on the error-codes page must put that page
   first in search_docs.
3. Plain-word questions over a real project's docs (RQ, ../shared/evals/rq; skipped when absent):
   recall@3 and MRR, see bench/docs_questions.py.
4. The offline model's answers to those questions: the right section quoted, "found nothing" when the
   docs have no answer (bench/offline_answers.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from atlas.settings import DEFAULT_DATA
from bench import docs_questions, offline_answers, search_quality_speed
from bench.like_scan import like_search
from bench.report import Table
from tools import open_corpus

K = 5


def run(data_dir: Path = DEFAULT_DATA, rq_data: Path = docs_questions.RQ_DATA) -> list[Table]:
    """`rq_data`: the folder the plain-word questions and the speed measure's first row read (the bench's is RQ's;
    the smoke test passes its small fixture folder, so it embeds a few sections instead of RQ's docs, twice)."""
    tables = []
    if (data_dir / "issues" / "issues.jsonl").is_file():
        tables.append(duplicates(data_dir))
    else:
        tables.append(Table("duplicate recall@5", ["scorer"], [], notes=[f"no issues at {data_dir}"]))
    tables.append(error_codes(data_dir))
    tables += docs_questions.run(rq_data)
    tables += offline_answers.run(rq_data)
    folders = (
        {"RQ": rq_data, "Orbit": data_dir}
        if (rq_data / "docs").is_dir() and rq_data != data_dir
        else {"Orbit": data_dir}
    )
    questions = (
        [q["question"] for q in docs_questions.cases(docs_questions.EVALS)]
        if (rq_data / "docs").is_dir()
        else ["How do retries work?"]
    )
    return [*tables, search_quality_speed.speed(folders, questions)]


def duplicates(data_dir: Path) -> Table:
    """recall@5 of the original when searching by a duplicate's title, FTS5 vs LIKE."""
    store = open_corpus(data_dir).issues
    conn = store.connection()
    pairs = conn.execute(
        "SELECT id, title, duplicate_of FROM issues WHERE duplicate_of IS NOT NULL ORDER BY id"
    ).fetchall()
    ranked: dict[str, list[int | None]] = {"fts5 bm25": [], "LIKE scan": []}  # rank of the original, 1-based
    missed: list[str] = []
    for dup_id, title, original in pairs:
        fts = [i.id for i in store.search(title, None, K + 1) if i.id != dup_id][:K]
        like = [i for i in like_search(conn, title, K + 1) if i != dup_id][:K]
        for name, ids in (("fts5 bm25", fts), ("LIKE scan", like)):
            ranked[name].append(ids.index(original) + 1 if original in ids else None)
        if original not in fts:
            missed.append(f"#{dup_id} -> #{original}")
    n = len(pairs) or 1
    rows = []
    for name, ranks in ranked.items():
        found = [r for r in ranks if r is not None]
        rows.append(
            [
                name,
                len(found),
                len(pairs),
                round(len(found) / n, 3),
                round(sum(1 for r in found if r == 1) / n, 3),
                round(sum(1 / r for r in found) / n, 3),
            ]
        )
    notes = [
        f"{len(pairs)} duplicate issues; query = the duplicate's title; the duplicate itself is excluded",
        "recall@1 and MRR@5 show ranking quality where recall@5 ties",
    ]
    if missed:
        notes.append("FTS5 misses: " + ", ".join(missed[:15]) + (" ..." if len(missed) > 15 else ""))
    return Table(
        title=f"duplicate detection: original in top {K} when searching by the duplicate's title",
        columns=["scorer", "found", "of", f"recall@{K}", "recall@1", f"MRR@{K}"],
        rows=rows,
        goal="FTS5 recall@5 at least the LIKE scan's",
        met=bool(pairs) and rows[0][3] >= rows[1][3],
        notes=notes,
    )


def error_codes(data_dir: Path) -> Table:
    """Does `What does ORB-xxxx mean?` rank the error-codes page (and the code's own section) first?"""
    page = data_dir / "docs" / "error-codes.md"
    if not page.is_file():
        return Table("error-code questions", ["code"], [], notes=[f"no error-codes page at {page}"])
    docs = open_corpus(data_dir, semantic=True).docs  # as workers search: hybrid when the model is installed
    docs.warm()  # as a worker does at start
    rows = []
    for code in re.findall(r"^## (ORB-\d{4})", page.read_text(encoding="utf-8"), re.M):
        top = docs.search(f"What does {code} mean?", 1)[0]
        rows.append(
            [code, top.doc_id, top.heading, _yes(top.doc_id == "error-codes"), _yes(top.heading.startswith(code))]
        )
    first = sum(1 for r in rows if r[3] == "yes")
    own = sum(1 for r in rows if r[4] == "yes")
    return Table(
        title="search_docs: 'What does ORB-xxxx mean?' for every code on error-codes",
        columns=["code", "top doc", "top section", "page first", "section first"],
        rows=rows,
        goal="error-codes ranked first for every code",
        met=bool(rows) and first == len(rows),
        notes=[f"page first for {first} of {len(rows)}; own section first for {own}"],
    )


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
