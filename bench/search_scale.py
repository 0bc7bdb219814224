"""Search latency at 100,000 issues: the FTS5 index vs the LIKE scan, same queries, same database.

The issues are generated at run time in a temporary folder by sampling the real Orbit issues and
perturbing them (words swapped and added, bodies cut at random, a comment or two), so term
statistics stay realistic. Nothing large is written into the repository.
"""

from __future__ import annotations

import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from atlas.settings import DEFAULT_DATA
from bench.like_scan import like_search
from bench.report import Table
from bench.tools_tokens import QUERIES
from datasets.tracker_db import SOURCE, connect_readonly, parse_issues, write_db
from tools.issue_store import IssueStore

N_ISSUES = 100_000
FTS_REPEATS = 30
LIKE_REPEATS = 2
LIMIT = 10
BODY_CHARS = 1200
COMMENT_CHARS = 400
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]+")


def run(data_dir: Path = DEFAULT_DATA, n_issues: int = N_ISSUES) -> list[Table]:
    source = data_dir / SOURCE
    if not source.is_file():
        return [Table("search latency at 100k issues", ["scorer"], [], notes=[f"no issues at {data_dir}"])]
    real = list(parse_issues(source.read_bytes(), source))
    with tempfile.TemporaryDirectory(prefix="atlas-scale-") as tmp:
        db = Path(tmp) / "issues" / "index.db"
        started = time.perf_counter()
        write_db(db, generate(real, n_issues, random.Random(7)), {"source_sha256": "generated"})
        build_seconds = time.perf_counter() - started
        store = IssueStore(db)
        conn = connect_readonly(db)
        fts = _latencies(lambda q: store.search(q, None, LIMIT), FTS_REPEATS)
        like = _latencies(lambda q: like_search(conn, q, LIMIT), LIKE_REPEATS)
        size_mb = db.stat().st_size / 1e6
        store.close()
        conn.close()
    rows = [["fts5 bm25", *_summary(fts)], ["LIKE scan", *_summary(like)]]
    speedup = statistics.median(like) / statistics.median(fts)
    return [
        Table(
            title=f"search latency over {n_issues:,} generated issues (ms per query, limit {LIMIT})",
            columns=["scorer", "p50 ms", "p95 ms", "samples"],
            rows=rows,
            goal="FTS5 p50 <= 10 ms and >= 20x faster than the LIKE scan",
            met=statistics.median(fts) <= 10 and speedup >= 20,
            notes=[
                f"p50 speedup {speedup:,.0f}x",
                f"queries: {', '.join(QUERIES)}",
                f"database {size_mb:,.0f} MB built in {build_seconds:.1f} s from {len(real)} real issues",
            ],
        )
    ]


def generate(real: list[dict[str, Any]], n: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """`n` issues sampled from `real` with perturbed text; ids 1..n."""
    vocabulary = sorted({w for issue in real for w in WORD.findall(issue["title"] + " " + (issue.get("body") or ""))})
    for number in range(1, n + 1):
        base = rng.choice(real)
        words = base["title"].split()
        if words and rng.random() < 0.6:
            words[rng.randrange(len(words))] = rng.choice(vocabulary)
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words) + 1), rng.choice(vocabulary))
        body = base.get("body") or ""
        start = rng.randrange(max(1, len(body) // 3))
        comments = [c for c in base.get("comments") or [] if isinstance(c, dict)]
        picked = rng.sample(comments, k=min(len(comments), rng.randint(0, 2)))
        yield {
            "id": number,
            "title": " ".join(words),
            "body": " ".join(rng.choice(vocabulary) for _ in range(3)) + " " + body[start : start + BODY_CHARS],
            "state": rng.choice(["open", "closed"]),
            "labels": base.get("labels") or [],
            "comments": [
                {
                    "author": c.get("author"),
                    "body": (c.get("body") or "")[:COMMENT_CHARS],
                    "created_at": c.get("created_at"),
                    "position": i,
                }
                for i, c in enumerate(picked)
            ],
        }


def _latencies(search: Callable[[str], object], repeats: int) -> list[float]:
    for query in QUERIES:
        search(query)  # warm the page cache
    samples = []
    for _ in range(repeats):
        for query in QUERIES:
            started = time.perf_counter()
            search(query)
            samples.append((time.perf_counter() - started) * 1000)
    return samples


def _summary(samples: list[float]) -> list[object]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return [round(statistics.median(ordered), 2), round(p95, 2), len(ordered)]
