"""With no model configured, an approved solved thread answers what the docs do not (issue 39 item 4): the offline
answer searches the kept entries beside the docs, leads with one that matches the question clearly better than the
docs' best section, cited as a solved thread by its permalink, names it "see also" when the docs answer well,
never cites a forgotten one, and searches nothing more while none is kept."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import redis

from atlas.settings import Settings
from tests.support.agent_harness import RecordingReporter
from tools.solved_threads import SolvedThread
from workers.knowledge import entries
from workers.process import runtime
from workers.runs.state import RunState

PI = SolvedThread(
    "K00000000a1",
    "How do I run Orbit workers on a Raspberry Pi?",
    "Use the arm64 image `orbit/worker:arm64` and start it with `--concurrency 1`.",
    ("https://orbit.example/arm64",),
    "https://chat.example/archives/C1/p1700000001",
    time.time(),
)
CODES = SolvedThread(
    "K00000000b2",
    "What does ORB-1202 mean?",
    "It is a permanent error.",
    (),
    "https://chat.example/archives/C1/p1700000002",
    time.time(),
)


@pytest.fixture
def ask(tmp_path: Path, redis_url: str):
    rt = runtime.build(Settings(home=tmp_path / "home", redis_url=redis_url, semantic_docs=False))

    def run(question: str) -> RunState:
        return rt.agent(RecordingReporter()).run(RunState(question=question))

    return run


def test_an_approved_entry_answers_what_the_docs_do_not(ask, redis_conn: redis.Redis) -> None:
    question = "How do I run Orbit workers on a Raspberry Pi?"
    before = ask(question)
    assert "search_history" not in before.steps[0].tools and PI.permalink not in before.answer  # none kept: no search
    entries.save(redis_conn, PI)
    run = ask(question)
    assert run.steps[0].tools[-1] == "search_history"
    assert run.answer.startswith(f"From a solved thread a maintainer approved ({PI.permalink}):")
    assert "`orbit/worker:arm64`" in run.answer and PI.permalink in run.sources
    assert entries.forget(redis_conn, PI.id)
    entries.save(redis_conn, CODES)  # another entry kept: the search is made, the forgotten one is not found
    after = ask(question)
    assert "search_history" in after.steps[0].tools
    assert (
        PI.permalink not in after.answer and PI.permalink not in after.sources and "a solved thread" not in after.answer
    )


def test_a_question_the_docs_answer_well_leads_with_the_docs_and_names_the_entry(ask, redis_conn: redis.Redis) -> None:
    entries.save(redis_conn, CODES)
    run = ask("What does ORB-1202 mean?")
    assert run.answer.startswith("From the docs, `error-codes` § ORB-1202 PermanentError")
    also = f"See also a solved thread, “{CODES.question}” ({CODES.permalink})."
    assert also in run.answer and "From a solved thread" not in run.answer
