"""The Slack bench's ack latency (bench/slack.py): bursts of CONCURRENCY signed mentions at `atlas serve`, against
the same app with a no-op handler and with one Redis round trip per mention (the floors), interleaved rounds; the
p99s side by side, as a ratio with its goal."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from atlas.settings import Settings
from bench.measure import percentile, wait
from bench.report import Table
from bench.slack_load import burst, request_bytes
from tests.standins.slack_events import Reply, SlackSender, mention
from tests.support.paths import REPO
from tests.support.processes import free_port, serving

if TYPE_CHECKING:
    from bench.slack_rig import Stack

CONCURRENCY = 50
ACK_ROUNDS = 8
REPEATS = 3  # Atlas, floor, Atlas, floor...: the median of each side's p99s
ACK_GOAL_RATIO = 1.5
DEADLINE_SECONDS = 120  # any phase: a bounded wait, never a hang
STATUS_WAIT_SECONDS = 1.5  # the bot's status delay (1 s) and its Web API calls


def _timed(send: SlackSender, payload: dict[str, Any], retry_num: int | None = None) -> tuple[float, Reply]:
    started = time.perf_counter()
    reply = send.event(payload, retry_num=retry_num)
    return (time.perf_counter() - started) * 1000, reply


# -- 1. ack latency, as a ratio to its floor ---------------------------------------------------


@contextmanager
def _floor(stack: Stack, processes: int, redis_url: str | None = None) -> Iterator[str]:
    """A floor server (bench/ack_floor.py) beside Atlas's, same process count; yields its events URL.
    With `redis_url`, the floor that also makes one Redis round trip per mention."""
    port = free_port()
    name = f"floor-{processes}{'-redis' if redis_url else ''}.log"
    log = open(stack.home / name, "ab")
    server = Settings.from_env(stack.env)  # the server-level settings `atlas serve` applies from the same environment
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.ack_floor",
            str(port),
            str(processes),
            stack.api.base_url,
            stack.api.token,
            str(server.http_threads),
            *([redis_url] if redis_url else []),
        ],
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait(lambda: serving(port) or proc.poll() is not None, "the floor server")
        if proc.poll() is not None:
            raise RuntimeError((stack.home / name).read_text()[-2000:])
        yield f"http://127.0.0.1:{port}/slack/events"
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        log.close()


def _bursts(stack: Stack, url: str, tag: str, rounds: int = ACK_ROUNDS) -> tuple[list[float], list[int]]:
    """`rounds` bursts of CONCURRENCY signed mentions, each followed by the same settling pause."""
    times: list[float] = []
    statuses: list[int] = []
    for round_ in range(rounds):
        requests = [
            request_bytes(url, mention(f"{tag} round {round_} question {i}", channel=f"C0{tag}{round_}"))
            for i in range(CONCURRENCY)
        ]
        for ms, status in burst(url, requests):
            times.append(ms)
            statuses.append(status)
        _settle(stack)
    return times, statuses


AckRow = tuple[list[object], list[str], bool]


def _ack_ratio(stack: Stack, processes: int) -> list[AckRow]:
    """Atlas and both floors, interleaved REPEATS times: a ratio row per floor (medians of the p99s), notes, all 200."""
    with _floor(stack, processes) as floor_url, _floor(stack, processes, stack.env["REDIS_URL"]) as redis_floor_url:
        for url in (
            stack.send.url,
            floor_url,
            redis_floor_url,
        ):  # warm: connection pools, threads, the first Redis scripts
            _bursts(stack, url, f"W{processes}{len(url)}{url[-20:-13]}", rounds=3)
        runs: list[tuple[float, float, float]] = []
        all_ok = True
        tail: list[float] = []
        for n in range(REPEATS):
            atlas, statuses = _bursts(stack, stack.send.url, f"A{processes}R{n}")
            floor, floor_statuses = _bursts(stack, floor_url, f"F{processes}R{n}")
            redis_floor, redis_statuses = _bursts(stack, redis_floor_url, f"G{processes}R{n}")
            all_ok = all_ok and all(s == 200 for s in statuses + floor_statuses + redis_statuses)
            runs.append((percentile(atlas, 0.99), percentile(floor, 0.99), percentile(redis_floor, 0.99)))
            tail.append(max(atlas))
        stack.conn.delete("rq:queue:atlas")  # nothing runs these: workers are stopped in this phase
    atlas_p99 = statistics.median(r[0] for r in runs)
    path = (
        f"Slack ack p99, {CONCURRENCY} concurrent signed mentions, {processes} process{'es' if processes > 1 else ''}"
    )
    note = (
        f"{processes} process(es): p99 per run (Atlas, floor, floor with one Redis round trip) "
        + ", ".join(f"({a:.1f}, {f:.1f}, {g:.1f})" for a, f, g in runs)
        + f"; Atlas max per run {', '.join(f'{m:.1f}' for m in tail)} ms"
    )
    rows: list[AckRow] = []
    for label, column in (("", 1), (", against the floor with one Redis round trip", 2)):
        floor_p99 = statistics.median(r[column] for r in runs)
        ratio = atlas_p99 / floor_p99
        rows.append(
            (
                [
                    path + label,
                    f"{atlas_p99:.1f} ms",
                    f"{floor_p99:.1f} ms",
                    f"{ratio:.2f}x",
                    f"<= {ACK_GOAL_RATIO:g}x",
                    "yes" if ratio <= ACK_GOAL_RATIO else "NO",
                ],
                [note] if column == 1 else [],
                all_ok and ratio <= ACK_GOAL_RATIO,
            )
        )
    return rows


def ack_latency(rows: list[AckRow]) -> Table:
    """The ratio table: Atlas's ack and its floor's, side by side, from the same run."""
    _server = Settings.from_env({})  # the bench's stacks set neither variable: the defaults, for all three servers
    return Table(
        title=f"Slack events endpoint: ack p99 against its floor ({REPEATS} interleaved runs of {ACK_ROUNDS} bursts of "
        f"{CONCURRENCY} concurrent signed mentions; medians)",
        columns=["path", "Atlas", "floor", "ratio", "goal", "met"],
        rows=[r for r, _, _ in rows],
        goal=(
            f"Atlas's p99 within {ACK_GOAL_RATIO:g}x of the floor's, every request answered 200 (Slack allows 3,000 ms)"
        ),
        met=all(ok for _, _, ok in rows),
        notes=[
            "floor: a Bolt app answering every mention from a listener middleware (bench/ack_floor.py): same signed "
            "requests, same waitress server and process model, no Redis",
            "server-level settings are the same for Atlas and both floors: "
            f"{_server.http_threads} waitress threads per "
            "process (ATLAS_HTTP_THREADS); Python's thread switch interval at 1, 5 (the default) or 50 ms, and 4, 8 "
            "or 32 threads, measured no different (branch p-ack3)",
            "floor with one Redis round trip: the same app running a no-op "
            "Lua script per mention (the intake's 7 keys, "
            "the request body as argument): what any ack that records the question before answering pays",
            "each Atlas ack verifies the signature, then claims the message, records the run and enqueues its job "
            "in one Redis script (bot/slack/intake.py); mentions that arrive together share a round trip "
            "(atlas/batched_script.py)",
            "workers are stopped in this phase; after every burst (both sides) the bot's delayed 'looking into it' "
            f"statuses for unanswered runs are let through ({STATUS_WAIT_SECONDS:.1f} s)",
            f"on {os.cpu_count()} cores shared with Redis and the load generator (one thread, non-blocking sockets, "
            "requests signed ahead of time)",
            *(n for _, notes, _ in rows for n in notes),
        ],
    )


def _settle(stack: Stack) -> None:
    """Let the previous burst's after-ack work (delayed statuses) finish before the next burst."""
    time.sleep(STATUS_WAIT_SECONDS)


# -- 2. overhead -----------------------------------------------------------------------------
