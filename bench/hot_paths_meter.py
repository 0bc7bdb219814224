"""How the hot-path bench (bench/hot_paths.py) measures: a process's CPU seconds (its children's too), the Redis
commands everyone else ran (INFO commandstats, less the meter's own polls and the idle rate), and a worker left
idle before a batch is counted."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psutil
import redis

from bench.measure import wait


def cpu_seconds(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system + times.children_user + times.children_system


class Commands:
    """Redis commands executed by everyone but this meter, from INFO commandstats."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self.own = 0  # the meter's own polls, taken off the count

    def total(self) -> int:
        stats = self.conn.info("commandstats")
        self.own += 1
        return sum(int(v["calls"]) for k, v in stats.items() if k not in ("cmdstat_info",))

    def poll(self, check: Callable[[], Any], what: str) -> Any:
        def counted() -> Any:
            self.own += 1
            return check()

        return wait(counted, what, interval=0.02)


def settle() -> None:
    time.sleep(1.5)  # the bot's delayed status (1 s) and any after-answer writes land before counting


def quiet(pid: int, deadline_s: float = 300.0) -> None:
    """Wait until the worker is idle: a worker embeds docs new to its data folder in a background thread
    after it starts (tools/docsearch/semantic.py), ~14 s of CPU for Orbit on a fresh checkout, which would
    be counted against the first rounds (a no-op round read 51 ms per job)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(1.0)
        if cpu_seconds(pid) - before < 0.03:
            return
    raise TimeoutError("bench: the worker never went idle")


def idle_rate(meter: Commands) -> float:
    """Commands per second with nothing to do (heartbeats, maintenance): taken off both sides by elapsed time."""
    before, own, start = meter.total(), meter.own, time.monotonic()
    time.sleep(3)
    return (meter.total() - before - (meter.own - own)) / (time.monotonic() - start)


def batch(meter: Commands, worker: int, idle: float, body: Callable[[], None], count: int) -> tuple[float, float]:
    """(worker CPU ms, Redis commands) per item of `body`, which does `count` items and waits for them."""
    settle()
    cpu, commands, own, start = cpu_seconds(worker), meter.total(), meter.own, time.monotonic()
    body()
    settle()
    elapsed = time.monotonic() - start
    spent = cpu_seconds(worker) - cpu
    used = meter.total() - commands - (meter.own - own) - idle * elapsed
    return spent * 1000 / count, used / count
