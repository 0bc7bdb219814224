"""What semantic docs search costs: model load, one query's encoding, a cold index build, a worker's memory.

Model load and memory are measured in fresh processes (a warm process has the imports and the file in
cache already); the load includes importing tokenizers and safetensors. Index build is cold: no vectors
kept, nothing in memory, every passage embedded (what a worker does once for new docs; later starts
read the vectors back). The issue's limit for loading is one second.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import Table
from tools import open_corpus
from tools.docsearch import semantic as docs_semantic
from tools.docsearch.bridge import thread_texts
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import load_pages

LOAD = """
import time; t = time.perf_counter()
from tools.docsearch.semantic import encoder
assert encoder() is not None
print(time.perf_counter() - t)
"""
# A worker's docs with search lexical, then the model loaded and one query encoded (vectors already kept in
# the scratch ATLAS_HOME given as the second argument).
MEMORY = """
import json, sys, psutil
from pathlib import Path
from tools import open_corpus
rss = lambda: psutil.Process().memory_info().rss / 2**20
open_corpus(Path(sys.argv[1]), Path(sys.argv[2])).docs.search("retry a failed job", 5)
before = rss()
docs = open_corpus(Path(sys.argv[1]), Path(sys.argv[2]), semantic=True).docs
docs.warm(); docs.search("retry a failed job", 5)
print(json.dumps([before, rss()]))
"""


def speed(folders: dict[str, Path], questions: list[str]) -> Table:
    """One row per measure; absent model: a table that says so."""
    if docs_semantic.encoder() is None:
        return Table(
            "semantic docs search: speed",
            ["measure"],
            [],
            notes=["skipped: the embedding model's package is not installed"],
        )
    root = str(Path(__file__).resolve().parent.parent)
    loads = [float(_python(LOAD, root)) for _ in range(3)]
    rows: list[list[object]] = [
        ["model load (fresh process, imports included), s", round(statistics.median(loads), 3), "< 1 s"]
    ]
    model = docs_semantic.encoder()
    assert model is not None
    times = []
    for question in questions:
        start = time.perf_counter()
        model.encode([question])
        times.append((time.perf_counter() - start) * 1000)
    rows.append(["query encode, ms (median)", round(statistics.median(times), 1), ""])
    for name, folder in folders.items():
        pages, threads = load_pages(folder / "docs"), thread_texts(folder / "issues" / "issues.jsonl")
        start = time.perf_counter()
        DocsIndex(pages, threads)
        rows.append([f"{name}: lexical index build, s", round(time.perf_counter() - start, 3), ""])
        with tempfile.TemporaryDirectory() as scratch:
            for label in ("cold: every passage embedded", "vectors kept: read back"):
                docs_semantic._memo.clear()
                index = DocsIndex(pages, threads, semantic=True, vectors_store=Path(scratch) / "v.db")
                start = time.perf_counter()
                index.warm()
                sections = len(index.vectors.sections) if index.vectors else 0
                cut = len(index.vectors.texts) if index.vectors else 0
                rows.append(
                    [
                        f"{name}: semantic index build ({sections} sections, {cut} passages), {label}, s",
                        round(time.perf_counter() - start, 3),
                        "",
                    ]
                )
    first = next(iter(folders.values()))
    with (
        tempfile.TemporaryDirectory() as home
    ):  # ATLAS_HOME: a data folder Atlas did not make (../shared) is never written
        open_corpus(first, Path(home), semantic=True).docs.warm()  # the vectors kept, as a worker finds them
        before, after = json.loads(_python(MEMORY, root, str(first), home))
    rows.append(
        [
            "worker RSS increase (model + vectors, after a search), MiB",
            round(after - before, 1),
            f"{round(before)} -> {round(after)} MiB",
        ]
    )
    return Table(
        title="semantic docs search: speed (all-MiniLM-L6-v2 in numpy)",
        columns=["measure", "value", "note"],
        rows=rows,
        goal="model load < 1 s",
        met=statistics.median(loads) < 1.0,
        notes=[
            "model load: median of 3 fresh processes; semantic builds exclude the lexical one (its own row); "
            "RSS counts the memory-mapped weights a forward pass touched"
        ],
    )


def _python(code: str, cwd: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]
