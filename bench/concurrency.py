"""Many runs per worker process (issue 29): `atlas worker --concurrency N` against a model stand-in that
takes 2.0 s per call, with 3-step runs (search_docs, get_issue, the answer), an embedded Redis, the
Slack Web API stand-in and `atlas serve`, all real processes on loopback.

1. In flight: one process with concurrency 100 holds 100 runs at once; its PSS with 1 run in flight and
   with 100 (psutil `memory_full_info().pss`, the most seen while they were in flight): MiB per extra run.
2. Mentions: 60 signed Slack mentions at once to `atlas serve`, one worker process: every thread
   answered, exactly once, and how long the last one took.
3. Throughput: the same runs through one process at concurrency 1 and at concurrency 50: answers per minute.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import psutil
import redis

from bench.concurrency_rig import MODEL_SECONDS, Stack, _stack, _worker
from bench.measure import wait
from bench.report import Table
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import mention
from workers.runs.queueing import submit
from workers.runs.state import RunState
from workers.runs.store import RunStore

IN_FLIGHT = 100
PSS_GOAL_MIB = 5.0
MENTIONS = 60
MENTIONS_GOAL_SECONDS = 20.0
THROUGHPUT_CONCURRENCY = 50
THROUGHPUT_RUNS = {1: 3, THROUGHPUT_CONCURRENCY: 100}  # runs per phase: the slow side needs few to be measured
THROUGHPUT_GOAL_RATIO = 20.0
DEADLINE_SECONDS = 120.0
MIB = 1024 * 1024
SETTLED_CPU_PERCENT = 5.0


def _finish(stack: Stack, runs: list[RunState]) -> None:
    store = RunStore(stack.conn)
    wait(
        lambda: all(store.load(r.id).final for r in runs),
        "every run to finish",
        timeout=DEADLINE_SECONDS,
        interval=0.05,
    )


def _settle(worker: psutil.Process) -> None:
    """Wait out the worker's start-up work (the docs' embeddings are computed in the background on a fresh
    home): its memory is measured once it idles."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while worker.cpu_percent(interval=0.5) > SETTLED_CPU_PERCENT and time.monotonic() < deadline:
        pass


def _memory_while(stack: Stack, worker: psutil.Process, count: int) -> tuple[float, float]:
    """Submit `count` runs; the most PSS and USS (MiB) seen while all `count` were in flight, once they finish."""
    runs = [submit(stack.conn, "atlas", f"How do retries back off? ({i})") for i in range(count)]
    wait(lambda: stack.model.in_flight >= count, f"{count} runs in flight", timeout=DEADLINE_SECONDS, interval=0.01)
    pss = uss = 0.0
    while stack.model.in_flight >= count:
        info = worker.memory_full_info()
        pss, uss = max(pss, info.pss / MIB), max(uss, info.uss / MIB)
        time.sleep(0.1)
    _finish(stack, runs)
    return pss, uss


def in_flight(stack: Stack) -> Table:
    with _worker(stack, IN_FLIGHT) as worker:
        _settle(worker)
        _memory_while(stack, worker, 2)  # warm: first imports, connections, caches
        one, one_uss = _memory_while(stack, worker, 1)
        stack.model.peak = 0
        many, many_uss = _memory_while(stack, worker, IN_FLIGHT)
        peak = stack.model.peak
    per_run = (many - one) / (IN_FLIGHT - 1)
    return Table(
        title=(
            f"One worker process, concurrency {IN_FLIGHT}: runs in flight and "
            f"memory ({MODEL_SECONDS:.1f} s model calls)"
        ),
        columns=[
            "runs submitted",
            "most model calls at once",
            "PSS, 1 in flight (MiB)",
            f"PSS, {IN_FLIGHT} in flight (MiB)",
            "MiB per extra run (PSS)",
            "(USS)",
        ],
        rows=[
            [
                IN_FLIGHT,
                peak,
                round(one, 1),
                round(many, 1),
                round(per_run, 2),
                round((many_uss - one_uss) / (IN_FLIGHT - 1), 2),
            ]
        ],
        goal=f"{IN_FLIGHT} in flight at once; <= {PSS_GOAL_MIB} MiB PSS per extra in-flight run",
        met=peak == IN_FLIGHT and per_run <= PSS_GOAL_MIB,
        notes=[
            "PSS counts shared pages once across the processes that map them (psutil memory_full_info().pss)",
            "3-step runs: search_docs, get_issue (the tracker's SQLite), then the answer",
        ],
    )


def _answers(api: SlackAPI, channel: str) -> dict[str, int]:
    answers: dict[str, int] = {}
    for call in api.calls_to("chat.postMessage"):
        blocks = call.args.get("blocks") or []
        if (
            call.args.get("channel") == channel
            and call.reply.get("ok")
            and any(b.get("type") == "markdown" for b in blocks)
        ):
            answers[call.args["thread_ts"]] = answers.get(call.args["thread_ts"], 0) + 1
    return answers


def mentions(stack: Stack) -> Table:
    events = [
        mention(f"How do retries back off? ({i})", channel="C0BURST", ts=f"{1_950_000_000 + i}.000100")
        for i in range(MENTIONS)
    ]
    threads = {e["event"]["ts"] for e in events}
    with _worker(stack, IN_FLIGHT):
        started = time.monotonic()
        with ThreadPoolExecutor(MENTIONS) as pool:
            statuses = list(pool.map(lambda e: stack.send.event(e).status, events))
        wait(
            lambda: set(_answers(stack.api, "C0BURST")) >= threads,
            "every answer",
            timeout=DEADLINE_SECONDS,
            interval=0.05,
        )
        took = time.monotonic() - started
        time.sleep(1.0)  # a second answer, if any, would have been posted by now
    answers = _answers(stack.api, "C0BURST")
    once = set(answers) == threads and set(answers.values()) == {1}
    return Table(
        title=f"{MENTIONS} Slack mentions at once, one worker process (concurrency {IN_FLIGHT})",
        columns=["mentions", "acked 200", "threads answered", "threads with != 1 answer", "last answer after (s)"],
        rows=[
            [
                MENTIONS,
                sum(s == 200 for s in statuses),
                len(answers),
                sum(1 for t in threads if answers.get(t) != 1),
                round(took, 1),
            ]
        ],
        goal=f"all answered within {MENTIONS_GOAL_SECONDS:.0f} s, each exactly once",
        met=once and took <= MENTIONS_GOAL_SECONDS and all(s == 200 for s in statuses),
        notes=[f"each run makes 3 model calls of {MODEL_SECONDS:.1f} s: 6 s is the floor"],
    )


def footprint(conn: redis.Redis, runs: list[RunState]) -> Table:
    """What a finished run leaves in Redis: bytes (MEMORY USAGE) per key, by key shape, and how long each lives."""
    sizes: dict[str, list[int]] = {}
    ttls: dict[str, set[int]] = {}
    for run in runs:
        for key in conn.scan_iter(match=f"*{run.id}*", count=1000):
            shape = key.decode().replace(run.id, "<run>")
            sizes.setdefault(shape, []).append(int(conn.memory_usage(key) or 0))
            ttl = int(conn.ttl(key))
            ttls.setdefault(shape, set()).add(-1 if ttl < 0 else round(ttl / 3600) * 3600)  # to the hour
    rows: list[list[object]] = [
        [shape, len(found), round(sum(found) / len(runs)), ", ".join(_lifetime(t) for t in sorted(ttls[shape]))]
        for shape, found in sorted(sizes.items())
    ]
    total = sum(r[2] for r in rows if isinstance(r[2], int))
    rows.append(["all of a run's keys", "", total, ""])
    return Table(
        title=f"Redis bytes per finished 3-step run ({len(runs)} runs, MEMORY USAGE)",
        columns=["key", "keys", "bytes per run", "lives"],
        rows=rows,
        notes=[
            "a finished run's record keeps no reasoning and of each tool output only its first 240 characters "
            "(workers/runs/store.py kept_when_finished, for the console's run page); "
            "the events stream is written only for runs asked from the terminal (`atlas ask`), not for chat runs"
        ],
    )


def _lifetime(ttl: int) -> str:
    return "forever" if ttl < 0 else f"{ttl // 86400} d" if ttl >= 86400 else f"{ttl // 3600} h"


def throughput(stack: Stack) -> list[Table]:
    rows: list[list[object]] = []
    per_minute: dict[int, float] = {}
    runs: list[RunState] = []
    for concurrency, count in THROUGHPUT_RUNS.items():
        with _worker(stack, concurrency):
            started = time.monotonic()
            runs = [submit(stack.conn, "atlas", f"How do retries back off? (c{concurrency} {i})") for i in range(count)]
            _finish(stack, runs)
            took = time.monotonic() - started
        per_minute[concurrency] = count / took * 60
        rows.append([concurrency, count, round(took, 1), round(per_minute[concurrency], 1)])
    ratio = per_minute[THROUGHPUT_CONCURRENCY] / per_minute[1]
    return [
        Table(
            title=(
                "Throughput of one worker process: concurrency 1 and "
                f"{THROUGHPUT_CONCURRENCY} ({MODEL_SECONDS:.1f} s model calls, 3-step runs)"
            ),
            columns=["concurrency", "runs", "all finished after (s)", "answers / min"],
            rows=rows,
            goal=(
                f"concurrency {THROUGHPUT_CONCURRENCY} >= "
                f"{THROUGHPUT_GOAL_RATIO:.0f}x concurrency 1 (measured: {ratio:.1f}x)"
            ),
            met=ratio >= THROUGHPUT_GOAL_RATIO,
            notes=["concurrency 1 is today's worker: RQ's SimpleWorker path, one job at a time on the main thread"],
        ),
        footprint(stack.conn, runs[:20]),
    ]


def run() -> list[Table]:
    with _stack() as stack:
        return [in_flight(stack), mentions(stack), *throughput(stack)]
