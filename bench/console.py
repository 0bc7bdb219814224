"""The console's pages with 100,000 runs in Redis (issue 30): `python -m bench console` (about 30 s).

A fresh embedded valkey is filled with 100,000 finished runs over 30 days: two platforms, 20 channels, every
status, a model and the offline model, one "not found" answer in 12. The older 98,000 are written in bulk
(their records patched from one real record, filed in the index's own sets with `run_index`'s key and gap
functions), so the fill takes seconds; the newest 2,000 go through `RunStore.save` as a worker's do (record
and index), with a vote on one in 20. With the embedding model installed, the gap runs among them are saved again
by a worker's store (which keeps each gap question's vector: the gaps page groups those by meaning) and the docs'
section vectors are computed once (kept in the data folder, as a worker does at start). The console is
served by the real `atlas serve` WSGI stack (waitress) and each page is fetched over HTTP by a signed-in
client, `REPEATS` times after one warm-up; the figure is the whole request, as a browser waits for it.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import redis

from atlas import embedded_redis
from atlas.settings import Settings
from bench.console_runs import RUNS, _record, _run, _spec, bulk_index, bulk_records
from bench.report import Table
from bot.console.app import console
from bot.web.serve import http_server
from tests.standins.slack_fixtures import BackgroundServer
from tests.support.console_harness import TOKEN
from tools import open_corpus
from tools.docsearch.minilm import model_dir
from tools.docsearch.semantic import encoder
from workers.console_data import index_filing, run_index, votes
from workers.runs.state import RunState
from workers.runs.store import RunStore, run_key

RECORDS = 2_000
BATCH = 1_000
REPEATS = 20
GOAL_MS = 100


def fill(conn: redis.Redis, now: float) -> tuple[float, float, float, int, str, str]:
    """RUNS runs: the older in bulk, the newest RECORDS through `RunStore.save` (record and index, as a worker
    does) with a vote on one in 20. Seconds taken, ms per save, ms of it the index's, index bytes per run, a run's
    id, and what keeping the gaps' question vectors cost (a note)."""
    rng = random.Random(30)
    store = RunStore(conn)
    sample = _run(_spec(0, rng, now))
    sample.status = "done"
    store.save(sample)
    template = json.loads(conn.get(run_key(sample.id)) or b"{}")
    conn.flushall()
    started = time.perf_counter()
    older = [_record(_spec(n, rng, now), template) for n in range(RUNS - RECORDS)]
    for start in range(0, len(older), BATCH):
        bulk_records(conn, older[start : start + BATCH])
    before = int(conn.info("memory")["used_memory"])
    for start in range(0, len(older), BATCH):
        bulk_index(conn, older[start : start + BATCH])
    per_run = round((int(conn.info("memory")["used_memory"]) - before) / len(older))
    last = ""
    newest = [_run(_spec(n, rng, now)) for n in range(RUNS - RECORDS, RUNS)]
    saving = time.perf_counter()
    for n, run in enumerate(newest):
        store.save(run)
        last = run.id if run.status == "done" else last
        if n % 20 == 0:
            votes.toggle(conn, run.id, f"U{n % 7}", "down" if n % 40 == 0 else "up")
    per_save = (time.perf_counter() - saving) * 1000 / RECORDS
    filing = time.perf_counter()
    for run in newest:
        index_filing.add(conn, run)  # filed again: what the index alone costs a save
    per_add = (time.perf_counter() - filing) * 1000 / RECORDS
    return time.perf_counter() - started, per_save, per_add, per_run, last, keep_vectors(conn, newest)


def keep_vectors(conn: redis.Redis, newest: list[RunState]) -> str:
    """Save the gap runs among `newest` again through a worker's store, which keeps each question's vector (and
    embeds the runs voted down meanwhile); what it cost, as a note."""
    if model_dir() is None:
        return "the embedding model's package is not installed: the gaps page groups by words"
    gaps = [r for r in newest if r.final and run_index.gap_of(r.status, r.answer, r.handoff)]
    worker = RunStore(conn, encoder)
    encoder()  # loaded before the clock starts, as a worker has it
    # Each run as a worker holds it when it ends: loaded, not these objects, which remember their filing and so
    # skip the save's filing and vectors (`RunStore.save` returns early for a run filed moments ago).
    loaded = [worker.load(r.id) for r in gaps]
    started = time.perf_counter()
    for run in loaded:
        worker.save(run)
    per_gap = (time.perf_counter() - started) * 1000 / max(1, len(gaps))
    kept = sum(1 for key in conn.scan_iter(match=run_index.vector_key("*"), count=1000))
    return (
        "a finished gap run's save by a worker, with its question's vector: "
        f"{per_gap:.1f} ms over {len(gaps)} gap runs; "
        f"{kept} question vectors kept (768 bytes each)"
    )


def timed(client: httpx.Client, path: str) -> list[float]:
    page = client.get(path)  # warm-up (the gaps page opens the docs index once)
    page.raise_for_status()
    assert "No runs match" not in page.text and "No gaps yet" not in page.text, path  # pages of something
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        got = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        assert got.status_code == 200, (path, got.status_code)
    return times


def run() -> list[Table]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-console-") as tmp:
        home = Path(tmp)
        url = embedded_redis.ensure_running(home / "redis")
        conn = redis.Redis.from_url(url)
        conn.config_set("appendonly", "no")  # a throwaway server: what is measured is reading, not persisting
        try:
            now = time.time()
            seconds, per_save, per_add, per_run, run_id, vectors_note = fill(conn, now)
            settings = Settings.from_env(
                {"REDIS_URL": url, "ATLAS_HOME": str(home / "atlas"), "ATLAS_CONSOLE_TOKEN": TOKEN}
            )
            if model_dir() is not None:  # the docs' section vectors, kept as a worker keeps them at start
                open_corpus(settings.data_dir, settings.home, True).docs.warm(wait=True)
            app = console(settings, conn)
            assert app is not None
            server = BackgroundServer(http_server(None, port=0, console=app, threads=4)).start()
            try:
                client = httpx.Client(
                    base_url=f"http://127.0.0.1:{server.port}/console",
                    timeout=30,
                    headers={"Authorization": f"Bearer {TOKEN}"},
                )
                first = client.get("/runs").text
                older = first.split("before=")[-1].split('"')[0]
                pages = [
                    ("runs", "/runs"),
                    ("runs, page 2", f"/runs?before={older}"),
                    ("runs by channel", "/runs?channel=C07"),
                    ("runs: discord, no votes (walks)", "/runs?platform=discord&feedback=none"),
                    ("runs: failed, offline (walks)", "/runs?status=failed&model=offline"),
                    ("runs: voted down", "/runs?feedback=down"),
                    ("a run", f"/runs/{run_id}"),
                    ("cost and use", "/usage"),
                    ("coverage gaps", "/gaps"),
                    ("gaps CSV", "/gaps.csv"),
                    ("approvals and triage", "/approvals"),
                    ("health", "/health"),
                ]
                rows: list[list[object]] = []
                for name, path in pages:
                    times = timed(client, path)
                    rows.append(
                        [
                            name,
                            round(statistics.median(times), 1),
                            round(sorted(times)[int(0.95 * len(times)) - 1], 1),
                            round(max(times), 1),
                        ]
                    )
            finally:
                server.close()
        finally:
            embedded_redis.stop(home / "redis")
    worst = max(float(r[2]) for r in rows)  # type: ignore[arg-type]
    return [
        Table(
            title=f"console pages with {RUNS:,} runs in Redis: one request over HTTP, signed in",
            columns=["page", "p50 ms", "p95 ms", "max ms"],
            rows=rows,
            goal=f"every page's p95 < {GOAL_MS} ms",
            met=worst < GOAL_MS,
            notes=[
                f"filled in {seconds:.1f} s; the console's indexes take {per_run} bytes per run (its sorted sets, "
                "menus and daily figures), besides the run's record",
                f"a finished run's save (record and index, one vote in 20): {per_save:.2f} ms, of which the index "
                f"(index_filing.add: its filing pushed, then filed) {per_add:.2f} ms, over {RECORDS:,} runs",
                vectors_note,
                f"{REPEATS} requests per page after one warm-up",
            ],
        )
    ]
