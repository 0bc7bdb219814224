"""A finished gap run's question is kept as a vector beside its index entry (issue 30, the gaps page's grouping by
meaning): by the worker's run store with the real docs encoder, compact, expiring with the index; a vote down
taken by the web process (no model) is embedded by the next run a worker finishes."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import redis

from tests.support.agent_harness import build_agent, settings_for
from tools.docsearch.minilm import model_dir
from tools.docsearch.semantic import encoder
from workers.console_data import index_filing, question_vectors, run_index, votes
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore

needs_model = pytest.mark.skipif(model_dir() is None, reason="the embedding model's package is not installed")
NOT_FOUND = "I could not find anything about this in the docs or the issue tracker."


def _run(question: str, answer: str | None, status: str = "done") -> RunState:
    run = RunState(
        question=question, status=status, origin=Origin(kind="slack", channel="C1", user="U1", thread_ts="1.1")
    )
    run.answer = answer
    return run


@needs_model
def test_a_finished_gap_run_keeps_its_question_as_a_vector_for_as_long_as_its_index_entry(
    redis_conn: redis.Redis,
) -> None:
    store = RunStore(redis_conn, encoder)
    gap = _run("How can I rotate the TLS certificate without downtime?", NOT_FOUND)
    answered = _run("How are retries scheduled?", "They back off exponentially.")
    working = _run("Can I renew the SSL cert while it runs?", None, status="running")
    for run in (gap, answered, working):
        store.save(run)
    blob = redis_conn.get(run_index.vector_key(gap.id))
    assert isinstance(blob, bytes) and len(blob) == 384 * 2  # float16, 384 values
    kept = question_vectors.read(redis_conn, [gap.id, answered.id, working.id])
    assert list(kept) == [gap.id]  # an answered run and one still working keep nothing
    model = encoder()
    assert model is not None
    assert float(kept[gap.id] @ model.encode([gap.question])[0]) > 0.999  # the question's own vector, float16 or not
    ttl = redis_conn.ttl(run_index.vector_key(gap.id))
    assert run_index.KEEP_SECONDS - 60 < ttl <= run_index.KEEP_SECONDS
    old = _run("Is there a Helm chart?", NOT_FOUND)
    old.created_at = time.time() - run_index.KEEP_SECONDS + 3600  # asked 29 days and 23 hours ago
    store.save(old)
    assert 3500 < redis_conn.ttl(run_index.vector_key(old.id)) <= 3600  # gone when the index trims the run


@needs_model
def test_a_vote_down_taken_without_a_model_is_embedded_by_the_next_run_a_worker_finishes(
    redis_conn: redis.Redis,
) -> None:
    worker = RunStore(redis_conn, encoder)
    liked = _run("What is the default retry limit?", "Three attempts.")
    worker.save(liked)
    votes.toggle(redis_conn, liked.id, "U2", "down")  # in the web process: it can only note that a vector is wanted
    assert redis_conn.zrange(run_index.wanted_key(), 0, -1) == [liked.id.encode()]
    assert not redis_conn.exists(run_index.vector_key(liked.id))
    worker.save(_run("How are retries scheduled?", "They back off."))  # any finished run
    assert liked.id in question_vectors.read(redis_conn, [liked.id])
    assert redis_conn.zcard(run_index.wanted_key()) == 0
    votes.toggle(redis_conn, liked.id, "U3", "down")  # a second vote: the vector is there, nothing is wanted
    assert redis_conn.zcard(run_index.wanted_key()) == 0


def test_without_the_model_nothing_is_kept_and_a_failing_encoder_does_not_lose_the_run(redis_conn: redis.Redis) -> None:
    gap = _run("How can I rotate the TLS certificate?", NOT_FOUND)
    RunStore(redis_conn, lambda: None).save(gap)  # the package absent: semantic.encoder() is None
    assert not redis_conn.exists(run_index.vector_key(gap.id))
    index_filing.flush(redis_conn)  # as a console page files what is pending before it reads
    assert redis_conn.zscore(run_index.gaps_key(), gap.id) is not None

    class Broken:
        def encode(self, texts: object) -> np.ndarray:
            raise RuntimeError("out of memory")

    other = _run("Does it run on Windows?", NOT_FOUND)
    RunStore(redis_conn, Broken).save(other)
    assert RunStore(redis_conn).load(other.id).answer == NOT_FOUND
    assert not redis_conn.exists(run_index.vector_key(other.id))


@needs_model
def test_a_worker_that_finds_nothing_keeps_the_question_s_vector(
    tmp_path: Path, redis_url: str, redis_conn: redis.Redis
) -> None:
    rt, agent, _ = build_agent(settings_for(tmp_path, redis_url, None))  # the worker's own wiring, the offline model
    run = RunState(
        question="Does Orbit ship a Helm chart for Kubernetes clusters on ARM?",
        origin=Origin(kind="slack", channel="C1", user="U1", thread_ts="1.1"),
    )
    rt.store.save(run)
    agent.run(run)
    saved = rt.store.load(run.id)
    assert saved.final and run_index.gap_of(saved.status, saved.answer, saved.handoff), saved.answer
    assert run.id in question_vectors.read(redis_conn, [run.id])


def test_a_finished_run_saved_while_a_filing_window_is_open_asks_nothing_about_vectors(redis_conn: redis.Redis) -> None:
    """Issue 40: Redis commands per run. The first run saved into an empty pending list takes the wanted runs; the
    next ones, no gap, send their record and their filing only (a ZPOPMAX each before)."""

    class Unused:
        def encode(self, texts: object) -> np.ndarray:
            raise AssertionError("nothing to embed")

    worker = RunStore(redis_conn, Unused)
    index_filing.flush(redis_conn)
    worker.save(_run("How are retries scheduled?", "They back off."))  # opens the window (its timer files it)
    before = _commands(redis_conn)
    worker.save(_run("What is the default retry limit?", "Three attempts."))
    assert _commands(redis_conn) - before - 1 == 2  # SET and RPUSH (less the first INFO)


def _commands(conn: redis.Redis) -> int:
    """Commands the server ran so far (INFO commandstats)."""
    return sum(int(v["calls"]) for v in conn.info("commandstats").values())
