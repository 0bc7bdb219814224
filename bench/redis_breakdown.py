"""Where a one-step Slack run's Redis commands go: `python -m bench.redis_breakdown [runs] [--noop] [--order]`.

A helper beside bench/hot_paths.py, not a suite: the same stack and runs (or its no-op floor jobs), watched
with MONITOR, which lists every command including those a Lua script runs (shown as `lua`). INFO commandstats
counts those too (an EVALSHA plus each `redis.call`), so the total here is the hot_paths row. Prints commands
per run by name, then by name and key shape (ids and timestamps folded), largest first.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections import Counter
from typing import Any

import redis
from rq import Worker

from bench import hot_paths
from bench.hot_paths_meter import Commands, quiet, settle
from bench.measure import wait
from bench.slack_rig import _stack
from tests.support.processes import atlas_process


def _shape(token: str) -> str:
    token = re.sub(r"[0-9a-f]{8,}(-[0-9a-f]{4,})*", "<id>", token)
    return re.sub(r"\d{6,}(\.\d+)?", "<n>", token)[:60]


def _row(command: dict[str, Any]) -> tuple[str, str, str]:
    parts = str(command["command"]).split(" ")
    name = parts[0].upper().strip('"')
    source = "lua" if command.get("client_type") == "lua" or command.get("client_address") == "lua" else "client"
    key = _shape(parts[1].strip('"')) if len(parts) > 1 else ""
    if name in ("EVALSHA", "EVAL") and len(parts) > 3:
        key = f"{parts[1][:12]} keys={parts[2]} {_shape(parts[3])}"
    return source, name, key


def main(runs: int, noop: bool, order: bool = False) -> None:
    hot_paths.RUNS_PER_ROUND = runs
    with _stack(1) as stack:
        worker = atlas_process(["worker", "--name", "breakdown"], stack.env, stack.home / "worker-breakdown.log")
        meter = Commands(stack.conn)
        try:
            wait(lambda: Worker.all(connection=stack.conn), "the worker")
            hot_paths._slack_runs(stack, meter, 900_000)()  # warm
            quiet(worker.pid)
            seen: list[dict[str, Any]] = []
            stop = threading.Event()

            def watch() -> None:
                with redis.Redis.from_url(stack.env["REDIS_URL"]).monitor() as monitor:
                    for command in monitor.listen():
                        if stop.is_set():
                            return
                        seen.append(command)

            threading.Thread(target=watch, daemon=True).start()
            time.sleep(0.5)
            body = hot_paths._noops(stack, meter) if noop else hot_paths._slack_runs(stack, meter, 0)
            before, own = meter.total(), meter.own
            body()
            settle()
            counted = meter.total() - before - (meter.own - own)
            stop.set()
            stack.conn.ping()
            time.sleep(0.3)
        finally:
            worker.terminate()
            worker.wait(timeout=15)
    rows = [_row(c) for c in seen]
    if order:  # the commands as they came (run it with 1 run): which step sent what
        for source, name, key in rows:
            print(f"{source:6} {name:18} {key}")
        return
    print(f"INFO commandstats per run (idle rate included): {counted / runs:.2f}; MONITOR: {len(rows) / runs:.2f}")
    for (source, name), n in Counter((s, c) for s, c, _ in rows).most_common():
        print(f"{n / runs:7.2f}  {source:6} {name}")
    print()
    for (source, name, key), n in Counter(rows).most_common():
        print(f"{n / runs:7.2f}  {source:6} {name:18} {key}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(int(args[0]) if args else 20, "--noop" in sys.argv, "--order" in sys.argv)
