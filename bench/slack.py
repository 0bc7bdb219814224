"""The Slack app under load, on loopback: `atlas serve` and `atlas worker` as real processes, the
Slack Web API stand-in, an embedded Redis, and an instant model (a canned Responses API reply).

1. Ack latency: bursts of 50 concurrent signed mention events; time to Slack's HTTP response, with
   1 and 2 processes, as a ratio to a floor (a bare Bolt app on the same server, bench/ack_floor.py)
   measured in the same run, interleaved. Workers are stopped, so the endpoint is measured alone.
2. Overhead: mention to answer posted, one at a time, through a warm worker and the instant model.
3. Duplicates: 200 mentions, each delivered again at random (concurrent and late Slack retries,
   retried again on a non-2xx the way Slack does): exactly one answer per mention.
"""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.measure import latency_row, wait
from bench.processes import atlas_workers
from bench.report import Table, overhead_table
from bench.slack_ack import DEADLINE_SECONDS, _ack_ratio, _timed, ack_latency
from bench.slack_rig import Stack, _answer_posted, _stack
from tests.standins.slack_events import mention

OVERHEAD_RUNS = 40
DUPLICATE_MENTIONS = 200
DUPLICATE_WORKERS = 2


def overhead(stack: Stack) -> Table:
    totals: list[float] = []
    acks: list[float] = []
    with atlas_workers(stack.env, stack.home, stack.conn, 1):
        for i in range(OVERHEAD_RUNS + 3):
            ts = f"{1_800_000_000 + i}.000100"
            started = time.monotonic()
            ack_ms, reply = _timed(stack.send, mention(f"What does ORB-1202 mean? ({i})", channel="C0OVER", ts=ts))
            assert reply.status == 200, reply
            posted = wait(lambda ts=ts: _answer_posted(stack.api, ts), "the answer")
            if i >= 3:  # the first runs warm the worker's connections
                totals.append((posted - started) * 1000)
                acks.append(ack_ms)
    return overhead_table(
        f"Mention to answer posted, through a real worker and an instant model ({OVERHEAD_RUNS} sequential)",
        [latency_row("mention -> answer posted", totals), latency_row("of which: the ack", acks)],
        notes=[
            "the path: ack, RQ dequeue, load run, model call, answer post (a Web API call to the local stand-in); "
            "the instant model calls no tool, so no progress message opens (bot/slack/progress.py)"
        ],
    )


# -- 3. duplicates ---------------------------------------------------------------------------


def duplicates(stack: Stack, seed: int = 7) -> Table:
    rng = random.Random(seed)
    events = [
        mention(f"Question {i} about ORB-1202", channel="C0DUP", ts=f"{1_900_000_000 + i}.000100")
        for i in range(DUPLICATE_MENTIONS)
    ]
    deliveries = 0
    non_2xx = 0
    lock = threading.Lock()

    def deliver(event: dict[str, Any], first_retry: int | None) -> None:
        """One Slack delivery: a non-2xx answer is retried (Slack retries up to three times)."""
        nonlocal deliveries, non_2xx
        retry = first_retry
        for _ in range(4):
            reply = stack.send.event(event, retry_num=retry)
            with lock:
                deliveries += 1
                non_2xx += reply.status >= 300
            if reply.status < 300:
                return
            time.sleep(rng.uniform(0.05, 0.2))
            retry = (retry or 0) + 1

    with atlas_workers(stack.env, stack.home, stack.conn, DUPLICATE_WORKERS), ThreadPoolExecutor(16) as pool:
        futures = []
        for event in events:
            copies = rng.choice([0, 0, 1, 1, 2, 3])
            futures.append(pool.submit(deliver, event, None))
            for n in range(copies):
                if rng.random() < 0.5:
                    futures.append(pool.submit(deliver, event, n + 1))  # concurrent with the first
                else:
                    futures.append(
                        pool.submit(lambda e=event, n=n: (time.sleep(rng.uniform(0, 1.5)), deliver(e, n + 1)))
                    )
        for future in futures:
            future.result(timeout=DEADLINE_SECONDS)
        threads = [e["event"]["ts"] for e in events]
        wait(lambda: all(_answer_posted(stack.api, ts) for ts in threads), "every answer")
        time.sleep(1.0)  # late duplicates, if any, would have been posted by now
    answers: dict[str, int] = {}
    for call in stack.api.calls_to("chat.postMessage"):
        blocks = call.args.get("blocks") or []
        if call.args.get("channel") == "C0DUP" and any(b.get("type") == "markdown" for b in blocks):
            answers[call.args["thread_ts"]] = answers.get(call.args["thread_ts"], 0) + 1
    total = sum(answers.values())
    exact = total == DUPLICATE_MENTIONS and set(answers) == set(threads) and set(answers.values()) == {1}
    return Table(
        title=f"Duplicates: {DUPLICATE_MENTIONS} mentions delivered with random Slack retries",
        columns=["mentions", "deliveries", "non-2xx (retried)", "answers posted", "threads with != 1 answer"],
        rows=[[DUPLICATE_MENTIONS, deliveries, non_2xx, total, sum(1 for t in threads if answers.get(t, 0) != 1)]],
        goal=f"exactly {DUPLICATE_MENTIONS} answers, one per mention",
        met=exact,
        notes=[
            f"{DUPLICATE_WORKERS} workers; retries both concurrent with the first delivery and up to 1.5 s after it",
            "a delivery that meets another in flight is answered 503 and retried later, as Slack would",
        ],
    )


def run() -> list[Table]:
    with _stack(1) as one:
        rows = _ack_ratio(one, 1)
    with _stack(2) as stack:
        rows += _ack_ratio(stack, 2)
        return [ack_latency(rows), overhead(stack), duplicates(stack)]


if __name__ == "__main__":
    for table in run():
        print(table.render() + "\n")
